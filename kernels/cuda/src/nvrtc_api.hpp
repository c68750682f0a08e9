#pragma once
// NVRTC, loaded with dlopen() on first use instead of linked: kforge-eval and the test binaries then start on a
// machine without the CUDA toolkit (the GPU bundle's host campaigns, tools/gpu-bundle.sh), and only a candidate
// that really needs NVRTC fails, as infra_error with the paths that were tried.
#include <nvrtc.h>

#include <string>

#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::cuda {

class NoNvrtc : public InfrastructureError {
 public:
  explicit NoNvrtc(const std::string& why) : InfrastructureError("no NVRTC: " + why) {}
};

struct NvrtcApi {
#define KFORGE_NVRTC_FN(name) decltype(&::name) name = nullptr
  KFORGE_NVRTC_FN(nvrtcVersion);
  KFORGE_NVRTC_FN(nvrtcGetErrorString);
  KFORGE_NVRTC_FN(nvrtcCreateProgram);
  KFORGE_NVRTC_FN(nvrtcDestroyProgram);
  KFORGE_NVRTC_FN(nvrtcCompileProgram);
  KFORGE_NVRTC_FN(nvrtcGetProgramLogSize);
  KFORGE_NVRTC_FN(nvrtcGetProgramLog);
  KFORGE_NVRTC_FN(nvrtcGetPTXSize);
  KFORGE_NVRTC_FN(nvrtcGetPTX);
  KFORGE_NVRTC_FN(nvrtcGetCUBINSize);
  KFORGE_NVRTC_FN(nvrtcGetCUBIN);
#undef KFORGE_NVRTC_FN
};

// The library is searched in this order: $KFORGE_NVRTC (a file), libnvrtc.so.<major> of the toolkit kforge was
// built with through the normal search (LD_LIBRARY_PATH, RUNPATH, ld.so.cache), then the same names under
// $CUDA_HOME/lib64, $CUDA_HOME/lib, /usr/local/cuda/lib64 and /usr/local/cuda/lib. Throws NoNvrtc naming
// every attempt when none loads. Loaded once per process; the handle is never closed.
const NvrtcApi& nvrtc();

// nvrtcGetErrorString through the loaded library, or "nvrtcResult N" without one. Never throws.
std::string nvrtc_error_text(nvrtcResult result);

}  // namespace kforge::kernels::cuda
