#pragma once
// Checked calls into NVRTC and the CUDA driver API: a failing call throws with the file, the line, the call
// as written and the library's own error string, so a log line names exactly what went wrong and where.
#include <nvrtc.h>

#include <stdexcept>
#include <string>

#include <cuda.h>

namespace kforge::kernels::cuda {

// The error of a failed NVRTC or driver call; what() = "file:line: call failed: ERROR_NAME (description)".
class CudaCallError : public std::runtime_error {
 public:
  CudaCallError(const char* file, int line, const char* call, const std::string& error)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + error) {}
};

[[noreturn]] void throw_nvrtc_error(const char* file, int line, const char* call, nvrtcResult result);
// Names the error through the loaded driver (cuGetErrorName/cuGetErrorString) when it is available.
[[noreturn]] void throw_driver_error(const char* file, int line, const char* call, CUresult result);

}  // namespace kforge::kernels::cuda

#define KFORGE_NVRTC_CHECK(call)                                                                   \
  do {                                                                                             \
    const nvrtcResult kforge_nvrtc_result_ = (call);                                               \
    if (kforge_nvrtc_result_ != NVRTC_SUCCESS)                                                     \
      ::kforge::kernels::cuda::throw_nvrtc_error(__FILE__, __LINE__, #call, kforge_nvrtc_result_); \
  } while (false)

// `call` goes through the dlopen()ed driver table, e.g. KFORGE_CU_CHECK(api.cuMemAlloc(&ptr, bytes)).
#define KFORGE_CU_CHECK(call)                                                                    \
  do {                                                                                           \
    const CUresult kforge_cu_result_ = (call);                                                   \
    if (kforge_cu_result_ != CUDA_SUCCESS)                                                       \
      ::kforge::kernels::cuda::throw_driver_error(__FILE__, __LINE__, #call, kforge_cu_result_); \
  } while (false)
