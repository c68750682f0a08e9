#pragma once
// A cuda engine backend on the FAKE GPU: every module emulated on the CPU (tests/kernels_cuda/emulator/).
#include "cuda_engine_test_support.hpp"
#include "emulated_engine_device.hpp"

namespace kforge::kernels::cuda::engine::testing {

inline CudaEngineBackend emulated_backend(const ScratchDir& scratch) {
  return CudaEngineBackend(CudaBackendOptions{scratch.sub("cache"), 0}, emulated_devices(scratch.sub("emulated")));
}

}  // namespace kforge::kernels::cuda::engine::testing
