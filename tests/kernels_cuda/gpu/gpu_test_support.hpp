#pragma once
// Shared by the GPU tests of the cuda backend: skip without a usable sm_90 / sm_100 device, small problems and
// short timing, and candidates built from hand-written kernel sources.
#include <string>

#include "cuda_test_support.hpp"
#include "device.hpp"

namespace kforge::kernels::cuda::test {

// The island target whose cubins this machine's GPU runs ("" when neither). Creates a context in this process.
inline std::string target_of_this_gpu() {
  const DeviceSession s;
  const int cc = s.compute_capability();
  return cc == 90 ? "hopper" : cc == 100 ? "blackwell" : "";
}

// A backend test on this process's GPU, for the family the test is parameterised with.
class GpuBackendTest : public CudaBackendTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    CudaBackendTest::SetUp();
    if (const std::string why = why_no_cuda_device(); !why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
    target_ = target_of_this_gpu();
    if (target_.empty()) GTEST_SKIP() << "the GPU is neither sm_90 nor sm_100";
    settings_.min_repeats = 3;
    settings_.max_repeats = 10;
    settings_.time_cap_s = 1.0;
    if (GetParam() == "gemm") settings_.problem = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
    if (GetParam().starts_with("kda")) settings_.problem = {{"B", 1}, {"T", 512}, {"H", 4}};
    if (GetParam() == "rmsnorm") settings_.problem = {{"rows", 1024}, {"hidden", 4096}};
  }

  // Compiles `source` as a candidate of the test's family (default genome, so the default launch) and loads it.
  std::unique_ptr<CudaBackend> loaded(const std::string& source) {
    auto b = backend(GetParam());
    const CompileResult r =
        compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome(), source), target_);
    EXPECT_TRUE(r.ok) << r.log;
    if (!r.ok) return nullptr;
    b->load(r);
    return b;
  }

  std::string target_;
};

}  // namespace kforge::kernels::cuda::test
