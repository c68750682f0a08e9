#pragma once
// The CUDA driver API, loaded with dlopen() at run time: kforge builds and runs its CPU-only paths (NVRTC
// compile, resource checks, CI tests) on machines without libcuda.so, and only the run stage needs a driver.
// Function pointers come from cuGetProcAddress for the toolkit's CUDA_VERSION, so each has exactly the type
// cuda.h declares (cuMemAlloc is cuMemAlloc_v2, and so on).
#include <stdexcept>
#include <string>

#include <cuda.h>

#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::cuda {

// Thrown when there is no usable GPU: no driver library, cuInit failed, or no device. The evaluator records
// it as infra_error (the candidate is not at fault).
class NoCudaDevice : public InfrastructureError {
 public:
  explicit NoCudaDevice(const std::string& why) : InfrastructureError("no CUDA device: " + why) {}
};

struct DriverApi {
#define KFORGE_DRIVER_FN(name) decltype(&::name) name = nullptr
  KFORGE_DRIVER_FN(cuInit);
  KFORGE_DRIVER_FN(cuGetErrorName);
  KFORGE_DRIVER_FN(cuGetErrorString);
  KFORGE_DRIVER_FN(cuDriverGetVersion);
  KFORGE_DRIVER_FN(cuDeviceGetCount);
  KFORGE_DRIVER_FN(cuDeviceGet);
  KFORGE_DRIVER_FN(cuDeviceGetName);
  KFORGE_DRIVER_FN(cuDeviceGetAttribute);
  KFORGE_DRIVER_FN(cuDevicePrimaryCtxRetain);
  KFORGE_DRIVER_FN(cuDevicePrimaryCtxRelease);
  KFORGE_DRIVER_FN(cuCtxSetCurrent);
  KFORGE_DRIVER_FN(cuCtxSynchronize);
  KFORGE_DRIVER_FN(cuCtxResetPersistingL2Cache);
  KFORGE_DRIVER_FN(cuModuleLoadData);
  KFORGE_DRIVER_FN(cuModuleUnload);
  KFORGE_DRIVER_FN(cuModuleGetFunction);
  KFORGE_DRIVER_FN(cuFuncSetAttribute);
  KFORGE_DRIVER_FN(cuMemAlloc);
  KFORGE_DRIVER_FN(cuMemFree);
  KFORGE_DRIVER_FN(cuMemcpyHtoD);
  KFORGE_DRIVER_FN(cuMemcpyDtoH);
  KFORGE_DRIVER_FN(cuMemcpyDtoHAsync);
  KFORGE_DRIVER_FN(cuMemcpyHtoDAsync);
  KFORGE_DRIVER_FN(cuMemcpyDtoDAsync);
  KFORGE_DRIVER_FN(cuMemsetD8Async);
  KFORGE_DRIVER_FN(cuMemAllocHost);  // page-locked staging for the cuda engine's logits
  KFORGE_DRIVER_FN(cuMemFreeHost);
  KFORGE_DRIVER_FN(cuStreamCreate);
  KFORGE_DRIVER_FN(cuStreamDestroy);
  KFORGE_DRIVER_FN(cuStreamSynchronize);
  KFORGE_DRIVER_FN(cuEventCreate);
  KFORGE_DRIVER_FN(cuEventDestroy);
  KFORGE_DRIVER_FN(cuEventRecord);
  KFORGE_DRIVER_FN(cuEventSynchronize);
  KFORGE_DRIVER_FN(cuEventElapsedTime);
  KFORGE_DRIVER_FN(cuLaunchKernel);
  // CUDA graphs (the cuda engine's decode steps): stream capture, timing marks inside a graph, replay.
  KFORGE_DRIVER_FN(cuStreamBeginCapture);
  KFORGE_DRIVER_FN(cuStreamEndCapture);
  KFORGE_DRIVER_FN(cuEventRecordWithFlags);
  KFORGE_DRIVER_FN(cuGraphInstantiateWithFlags);
  KFORGE_DRIVER_FN(cuGraphLaunch);
  KFORGE_DRIVER_FN(cuGraphExecDestroy);
  KFORGE_DRIVER_FN(cuGraphDestroy);
#undef KFORGE_DRIVER_FN
};

// Loads libcuda.so.1, resolves every function and calls cuInit(0) once per process (the first call decides).
// Throws NoCudaDevice naming the reason when the driver is missing, cuInit fails or no device is visible.
const DriverApi& driver();

// "" when driver() would succeed, else the reason (for tests that skip without a GPU). Never throws.
std::string why_no_cuda_device();

// Error text for a driver result ("CUDA_ERROR_OUT_OF_MEMORY (out of memory)"); works without a driver too.
std::string driver_error_text(CUresult result);

}  // namespace kforge::kernels::cuda
