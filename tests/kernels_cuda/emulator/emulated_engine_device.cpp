#include "emulated_engine_device.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cuda_engine_source.hpp"
#include "kforge/jobs/candidate.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

// The dispatch the emulated module exports: cuLaunchKernel's job, by kernel name.
std::string launch_footer() {
  std::string out = R"(
#include <string>
extern "C" const char* kf_emu_launch(const char* name, const unsigned* grid, const unsigned* block, void** args) {
  static std::string error;
  std::function<void()> body;
)";
  for (std::string_view k : kEngineKernels) {
    const std::string n(k);
    out += "  if (std::strcmp(name, \"" + n + "\") == 0) body = [args] { kf_emu::invoke(&" + n + ", args); };\n";
  }
  out += R"(  if (!body) {
    error = std::string("the module has no kernel ") + name;
    return error.c_str();
  }
  error = kf_emu::launch(body, grid, block);
  return error.empty() ? nullptr : error.c_str();
}
)";
  return out;
}

std::string run_command(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("emulated device: cannot run " + command);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  if (pclose(pipe) != 0)
    throw std::runtime_error("emulated device: the module does not compile as host C++:\n" + output);
  return output;
}

}  // namespace

EmulatedEngineDevice::EmulatedEngineDevice(const ModuleImage& image, const std::filesystem::path& work_dir) {
  std::string defines;
  for (const std::string& d : image.defines) defines += " " + d;
  const std::string key = jobs::sha256_hex(image.source + defines).substr(0, 20);
  std::filesystem::create_directories(work_dir);
  const std::filesystem::path source = work_dir / (key + ".cpp"), library = work_dir / (key + ".so");
  if (!std::filesystem::exists(library)) {
    std::ofstream(source) << image.source << launch_footer();
    const std::filesystem::path partial = work_dir / (key + ".so.partial");
    run_command(std::string(KFORGE_EMULATION_CXX) + " -std=c++17 -O2 -fPIC -shared -w -include " +
                KFORGE_EMULATION_RUNTIME + defines + " -x c++ " + source.string() + " -o " + partial.string());
    std::filesystem::rename(partial, library);  // a half-written library never counts
  }
  library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) throw std::runtime_error(std::string("emulated device: dlopen failed: ") + dlerror());
  launch_ = reinterpret_cast<LaunchFn>(dlsym(library_, "kf_emu_launch"));
  if (launch_ == nullptr) throw std::runtime_error("emulated device: the module exports no kf_emu_launch");
}

EmulatedEngineDevice::~EmulatedEngineDevice() {
  if (library_ != nullptr) dlclose(library_);
}

std::uint64_t EmulatedEngineDevice::allocate(std::size_t bytes) {
  buffers_.emplace_back(new std::byte[bytes == 0 ? 1 : bytes]);
  allocated_ += bytes;
  return reinterpret_cast<std::uint64_t>(buffers_.back().get());
}

void EmulatedEngineDevice::upload(std::uint64_t to, const void* from, std::size_t bytes) {
  if (bytes != 0) std::memcpy(reinterpret_cast<void*>(to), from, bytes);
}

void EmulatedEngineDevice::download(void* to, std::uint64_t from, std::size_t bytes) {
  if (bytes != 0) std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
}

void EmulatedEngineDevice::fill(std::uint64_t to, unsigned char value, std::size_t bytes) {
  if (bytes != 0) std::memset(reinterpret_cast<void*>(to), value, bytes);
}

void EmulatedEngineDevice::launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  ++launches_;
  if (const char* error = launch_(std::string(name).c_str(), l.grid.data(), l.block.data(), args.pointers()))
    throw std::runtime_error("emulated launch of " + std::string(name) + " (" + l.text() + ") failed: " + error);
}

int EmulatedEngineDevice::mark() {
  marks_.push_back(std::chrono::steady_clock::now());
  return static_cast<int>(marks_.size()) - 1;
}

double EmulatedEngineDevice::elapsed_ms(int from, int to) {
  return std::chrono::duration<double, std::milli>(marks_.at(static_cast<std::size_t>(to)) -
                                                   marks_.at(static_cast<std::size_t>(from)))
      .count();
}

DeviceFactory emulated_devices(std::filesystem::path work_dir) {
  return [work_dir](const ModuleImage& image) -> std::unique_ptr<EngineDevice> {
    return std::make_unique<EmulatedEngineDevice>(image, work_dir);
  };
}

}  // namespace kforge::kernels::cuda::engine
