#include "nvrtc_api.hpp"

#include <cuda.h>  // CUDA_VERSION: the toolkit kforge was built with
#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace kforge::kernels::cuda {
namespace {

struct LoadedNvrtc {
  NvrtcApi api;
  std::string failure;  // empty when api is usable
};

std::vector<std::string> candidate_paths() {
  // The major version of the headers we were built with first; NVRTC's C API is stable across 12 and 13.
  const std::vector<std::string> names{"libnvrtc.so." + std::to_string(CUDA_VERSION / 1000), "libnvrtc.so.13",
                                       "libnvrtc.so.12", "libnvrtc.so"};
  std::vector<std::string> paths;
  if (const char* explicit_path = std::getenv("KFORGE_NVRTC"); explicit_path != nullptr && *explicit_path)
    paths.emplace_back(explicit_path);
  for (const auto& n : names) paths.push_back(n);  // the first name may repeat a later one: tried twice, harmless
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home) {
    dirs.push_back(std::string(home) + "/lib64");
    dirs.push_back(std::string(home) + "/lib");
  }
  dirs.emplace_back("/usr/local/cuda/lib64");
  dirs.emplace_back("/usr/local/cuda/lib");
  for (const auto& d : dirs)
    for (const auto& n : names) paths.push_back(d + "/" + n);
  return paths;
}

template <typename Fn>
bool resolve(void* lib, const char* name, Fn& slot, std::string& failure) {
  slot = reinterpret_cast<Fn>(dlsym(lib, name));
  if (slot == nullptr) failure = std::string("the library lacks ") + name;
  return slot != nullptr;
}

LoadedNvrtc load() {
  LoadedNvrtc n;
  std::string tried;
  void* lib = nullptr;
  for (const auto& path : candidate_paths()) {
    lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(err ? err : path.c_str());
  }
  if (lib == nullptr) {
    n.failure = "cannot load libnvrtc (set KFORGE_NVRTC or add the CUDA toolkit's lib64 to LD_LIBRARY_PATH): " + tried;
    return n;
  }
  NvrtcApi& a = n.api;
  std::string& f = n.failure;
  resolve(lib, "nvrtcVersion", a.nvrtcVersion, f) && resolve(lib, "nvrtcGetErrorString", a.nvrtcGetErrorString, f) &&
      resolve(lib, "nvrtcCreateProgram", a.nvrtcCreateProgram, f) &&
      resolve(lib, "nvrtcDestroyProgram", a.nvrtcDestroyProgram, f) &&
      resolve(lib, "nvrtcCompileProgram", a.nvrtcCompileProgram, f) &&
      resolve(lib, "nvrtcGetProgramLogSize", a.nvrtcGetProgramLogSize, f) &&
      resolve(lib, "nvrtcGetProgramLog", a.nvrtcGetProgramLog, f) &&
      resolve(lib, "nvrtcGetPTXSize", a.nvrtcGetPTXSize, f) && resolve(lib, "nvrtcGetPTX", a.nvrtcGetPTX, f) &&
      resolve(lib, "nvrtcGetCUBINSize", a.nvrtcGetCUBINSize, f) && resolve(lib, "nvrtcGetCUBIN", a.nvrtcGetCUBIN, f);
  return n;
}

const LoadedNvrtc& loaded() {
  static const LoadedNvrtc n = load();  // thread-safe, once per process
  return n;
}

}  // namespace

const NvrtcApi& nvrtc() {
  const LoadedNvrtc& n = loaded();
  if (!n.failure.empty()) throw NoNvrtc(n.failure);
  return n.api;
}

std::string nvrtc_error_text(nvrtcResult result) {
  const NvrtcApi& a = loaded().api;
  if (a.nvrtcGetErrorString != nullptr) return a.nvrtcGetErrorString(result);
  return "nvrtcResult " + std::to_string(static_cast<int>(result));
}

}  // namespace kforge::kernels::cuda
