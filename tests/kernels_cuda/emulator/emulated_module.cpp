#include "emulated_module.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "kforge/jobs/candidate.hpp"

namespace kforge::kernels::cuda {
namespace {

// The dispatch the emulated module exports: cuLaunchKernel's job, by kernel name.
std::string launch_footer(const std::vector<std::string>& kernels) {
  std::string out = R"(
#include <string>
extern "C" const char* kf_emu_launch(const char* name, const unsigned* grid, const unsigned* block,
                                     std::size_t dynamic_shared, void** args) {
  static std::string error;
  std::function<void()> body;
)";
  for (const std::string& k : kernels)
    out += "  if (std::strcmp(name, \"" + k + "\") == 0) body = [args] { kf_emu::invoke(&" + k + ", args); };\n";
  out += R"(  if (!body) {
    error = std::string("the module has no kernel ") + name;
    return error.c_str();
  }
  error = kf_emu::launch(body, grid, block, dynamic_shared);
  return error.empty() ? nullptr : error.c_str();
}
)";
  return out;
}

void run_compiler(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("emulated module: cannot run " + command);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  if (pclose(pipe) != 0)
    throw std::runtime_error("emulated module: the source does not compile as host C++:\n" + output);
}

}  // namespace

EmulatedModule::EmulatedModule(const std::string& source, const std::vector<std::string>& defines,
                               const std::vector<std::string>& kernels, const std::filesystem::path& work_dir) {
  std::string flags, names;
  for (const std::string& d : defines) flags += " " + d;
  for (const std::string& k : kernels) names += " " + k;
  const std::string key = jobs::sha256_hex(source + flags + names).substr(0, 20);
  std::filesystem::create_directories(work_dir);
  const std::filesystem::path cpp = work_dir / (key + ".cpp"), library = work_dir / (key + ".so");
  if (!std::filesystem::exists(library)) {
    std::ofstream(cpp) << source << launch_footer(kernels);
    const std::filesystem::path partial = work_dir / (key + ".so.partial");
    run_compiler(std::string(KFORGE_EMULATION_CXX) + " -std=c++17 -O2 -fPIC -shared -w -include " +
                 KFORGE_EMULATION_RUNTIME + flags + " -x c++ " + cpp.string() + " -o " + partial.string());
    std::filesystem::rename(partial, library);  // a half-written library never counts
  }
  library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) throw std::runtime_error(std::string("emulated module: dlopen failed: ") + dlerror());
  launch_ = reinterpret_cast<LaunchFn>(dlsym(library_, "kf_emu_launch"));
  if (launch_ == nullptr) throw std::runtime_error("emulated module: the library exports no kf_emu_launch");
}

EmulatedModule::~EmulatedModule() {
  if (library_ != nullptr) dlclose(library_);
}

void EmulatedModule::launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  if (const char* error = launch_(std::string(name).c_str(), l.grid.data(), l.block.data(),
                                  static_cast<std::size_t>(l.dynamic_shared_bytes), args.pointers()))
    throw std::runtime_error("emulated launch of " + std::string(name) + " (" + l.text() + ") failed: " + error);
}

}  // namespace kforge::kernels::cuda
