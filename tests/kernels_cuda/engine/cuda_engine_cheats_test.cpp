// Hostile cuda engine modules (cuda_engine_hostile_modules.hpp) on the CPU emulation of the module (a FAKE GPU):
// every one passes the compile stage, and verification or the serving verdict catches it. A module only computes;
// the launch plan, the poisoned logits, the fresh verification traces and the checks after every served run are
// the harness's. ../gpu/cuda_engine_gpu_test.cpp runs the same list on a GPU.
#include <gtest/gtest.h>

#include "cuda_engine_hostile_modules.hpp"
#include "emulated_backend.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

class CudaEngineCheats : public ::testing::TestWithParam<testing::HostileModule> {};

TEST_P(CudaEngineCheats, IsCaught) {
  testing::ScratchDir scratch;
  CudaEngineBackend backend = testing::emulated_backend(scratch);
  testing::expect_caught(backend, GetParam(), scratch, "hopper");
}

INSTANTIATE_TEST_SUITE_P(OnTheEmulation, CudaEngineCheats, ::testing::ValuesIn(testing::hostile_modules()),
                         [](const ::testing::TestParamInfo<testing::HostileModule>& p) { return p.param.name; });

}  // namespace
}  // namespace kforge::kernels::cuda::engine
