#include "driver_api.hpp"

#include <dlfcn.h>

#include "checked_call.hpp"
#include "nvrtc_api.hpp"

namespace kforge::kernels::cuda {
namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct LoadedDriver {
  DriverApi api;
  std::string failure;  // empty when api is usable
};

template <typename Fn>
void resolve(GetProcAddress get, const char* name, Fn& slot) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  if (get(name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS || fn == nullptr)
    throw NoCudaDevice(std::string("the driver lacks ") + name + " for CUDA " + std::to_string(CUDA_VERSION) +
                       " (driver too old for this toolkit?)");
  slot = reinterpret_cast<Fn>(fn);
}

void resolve_all(GetProcAddress get, DriverApi& a) {
#define KFORGE_RESOLVE(name) resolve(get, #name, a.name)
  KFORGE_RESOLVE(cuInit);
  KFORGE_RESOLVE(cuGetErrorName);
  KFORGE_RESOLVE(cuGetErrorString);
  KFORGE_RESOLVE(cuDriverGetVersion);
  KFORGE_RESOLVE(cuDeviceGetCount);
  KFORGE_RESOLVE(cuDeviceGet);
  KFORGE_RESOLVE(cuDeviceGetName);
  KFORGE_RESOLVE(cuDeviceGetAttribute);
  KFORGE_RESOLVE(cuDevicePrimaryCtxRetain);
  KFORGE_RESOLVE(cuDevicePrimaryCtxRelease);
  KFORGE_RESOLVE(cuCtxSetCurrent);
  KFORGE_RESOLVE(cuCtxSynchronize);
  KFORGE_RESOLVE(cuCtxResetPersistingL2Cache);
  KFORGE_RESOLVE(cuModuleLoadData);
  KFORGE_RESOLVE(cuModuleUnload);
  KFORGE_RESOLVE(cuModuleGetFunction);
  KFORGE_RESOLVE(cuFuncSetAttribute);
  KFORGE_RESOLVE(cuMemAlloc);
  KFORGE_RESOLVE(cuMemFree);
  KFORGE_RESOLVE(cuMemcpyHtoD);
  KFORGE_RESOLVE(cuMemcpyDtoH);
  KFORGE_RESOLVE(cuMemcpyDtoHAsync);
  KFORGE_RESOLVE(cuMemcpyHtoDAsync);
  KFORGE_RESOLVE(cuMemcpyDtoDAsync);
  KFORGE_RESOLVE(cuMemsetD8Async);
  KFORGE_RESOLVE(cuMemAllocHost);
  KFORGE_RESOLVE(cuMemFreeHost);
  KFORGE_RESOLVE(cuStreamCreate);
  KFORGE_RESOLVE(cuStreamDestroy);
  KFORGE_RESOLVE(cuStreamSynchronize);
  KFORGE_RESOLVE(cuEventCreate);
  KFORGE_RESOLVE(cuEventDestroy);
  KFORGE_RESOLVE(cuEventRecord);
  KFORGE_RESOLVE(cuEventSynchronize);
  KFORGE_RESOLVE(cuEventElapsedTime);
  KFORGE_RESOLVE(cuLaunchKernel);
  KFORGE_RESOLVE(cuStreamBeginCapture);
  KFORGE_RESOLVE(cuStreamEndCapture);
  KFORGE_RESOLVE(cuEventRecordWithFlags);
  KFORGE_RESOLVE(cuGraphInstantiateWithFlags);
  KFORGE_RESOLVE(cuGraphLaunch);
  KFORGE_RESOLVE(cuGraphExecDestroy);
  KFORGE_RESOLVE(cuGraphDestroy);
#undef KFORGE_RESOLVE
}

LoadedDriver load_driver() {
  LoadedDriver d;
  // The handle stays open for the life of the process: function pointers into it are handed out.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    d.failure = std::string("cannot load the driver library libcuda.so.1: ") + (err ? err : "unknown dlopen error");
    return d;
  }
  auto get = reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2"));
  if (get == nullptr) {
    d.failure = "libcuda.so.1 has no cuGetProcAddress_v2 (driver older than CUDA 12)";
    return d;
  }
  try {
    resolve_all(get, d.api);
    if (const CUresult r = d.api.cuInit(0); r != CUDA_SUCCESS) {
      d.failure = "cuInit(0) failed: " + driver_error_text(r);
      return d;
    }
    int count = 0;
    if (const CUresult r = d.api.cuDeviceGetCount(&count); r != CUDA_SUCCESS)
      d.failure = "cuDeviceGetCount failed: " + driver_error_text(r);
    else if (count == 0)
      d.failure = "cuDeviceGetCount reports 0 devices (check CUDA_VISIBLE_DEVICES and the GPU binding)";
  } catch (const NoCudaDevice& e) {
    d.failure = e.what();
  }
  return d;
}

const LoadedDriver& loaded() {
  static const LoadedDriver d = load_driver();  // thread-safe, once per process
  return d;
}

}  // namespace

const DriverApi& driver() {
  const LoadedDriver& d = loaded();
  if (!d.failure.empty()) throw NoCudaDevice(d.failure);
  return d.api;
}

std::string why_no_cuda_device() { return loaded().failure; }

std::string driver_error_text(CUresult result) {
  const DriverApi& a = loaded().api;
  const char* name = nullptr;
  const char* text = nullptr;
  if (a.cuGetErrorName != nullptr) a.cuGetErrorName(result, &name);
  if (a.cuGetErrorString != nullptr) a.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUresult " + std::to_string(static_cast<int>(result));
  if (text != nullptr) out += std::string(" (") + text + ")";
  return out;
}

void throw_nvrtc_error(const char* file, int line, const char* call, nvrtcResult result) {
  throw CudaCallError(file, line, call, nvrtc_error_text(result));
}

void throw_driver_error(const char* file, int line, const char* call, CUresult result) {
  throw CudaCallError(file, line, call, driver_error_text(result));
}

}  // namespace kforge::kernels::cuda
