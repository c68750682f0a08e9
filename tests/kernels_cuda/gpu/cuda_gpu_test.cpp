// The run stage on a real GPU: load, verify against the host reference, time, time the baselines; and a
// broken kernel fails verification. Every test skips with the reason when there is no usable device.
#include "gpu_test_support.hpp"
#include "nvrtc_compiler.hpp"

namespace kforge::kernels::cuda::test {
namespace {

using CudaGpuTest = GpuBackendTest;

TEST_P(CudaGpuTest, DefaultCandidateLoadsVerifiesAndTimes) {
  auto b = backend(GetParam());
  const jobs::Candidate c = candidate(b->cuda_family(), b->cuda_family().default_genome());
  const CompileResult r = compile(*b, c, target_);
  ASSERT_TRUE(r.ok) << r.log;
  b->load(r);
  const VerifyResult v = b->verify(context(target_));
  ASSERT_EQ(v.status, jobs::Status::ok) << v.evidence;
  EXPECT_LE(v.max_abs_error, 1.0);
  const TimeResult t = b->time(context(target_));
  EXPECT_EQ(t.status, jobs::Status::ok) << t.evidence;
  ASSERT_GE(t.samples_ms.size(), 1u);
  for (double ms : t.samples_ms) EXPECT_GT(ms, 0.0);
}

TEST_P(CudaGpuTest, BaselinesAreTimed) {
  settings_.baselines = {"reference"};
  if (GetParam() == "gemm") settings_.baselines.push_back("cublas");
  auto b = backend(GetParam());
  const std::vector<jobs::Baseline> out = b->time_baselines(context(target_));
  ASSERT_EQ(out.size(), settings_.baselines.size());
  for (const auto& base : out) {
    EXPECT_GT(base.time_median_ms, 0.0) << base.name;
    EXPECT_GT(base.sample_count, 0) << base.name;
  }
}

TEST_P(CudaGpuTest, KernelThatWritesNothingFailsVerification) {
  auto b = backend(GetParam());
  const std::string entry = b->cuda_family().entry_point();
  const std::string lazy = "extern \"C\" __global__ void " + entry + "() {}\n";  // leaves the poison in place
  const CompileResult r = compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome(), lazy), target_);
  ASSERT_TRUE(r.ok) << r.log;
  b->load(r);
  const VerifyResult v = b->verify(context(target_));
  EXPECT_EQ(v.status, jobs::Status::wrong_result) << v.evidence;
  EXPECT_NE(v.evidence.find("NaN"), std::string::npos) << v.evidence;
}

// A PTX candidate (the NVRTC PTX of the default genome, assembled by ptxas) goes through the same run stage.
TEST_P(CudaGpuTest, PtxCandidateLoadsVerifiesAndTimes) {
  auto b = backend(GetParam());
  const jobs::Genome g = b->cuda_family().default_genome();
  const std::string arch = target_ == "hopper" ? "sm_90a" : "sm_100a";
  const NvrtcOutput ptx = compile_with_nvrtc({b->render(candidate(b->cuda_family(), g)), "candidate.cu", arch, {}});
  ASSERT_TRUE(ptx.ok) << ptx.log;
  const CompileResult r = compile(*b, candidate(b->cuda_family(), g, ptx.ptx), target_);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_NE(r.log.find("Compiling entry function"), std::string::npos) << r.log;
  b->load(r);
  const VerifyResult v = b->verify(context(target_));
  ASSERT_EQ(v.status, jobs::Status::ok) << v.evidence;
  const TimeResult t = b->time(context(target_));
  EXPECT_EQ(t.status, jobs::Status::ok) << t.evidence;
  EXPECT_GE(t.samples_ms.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, CudaGpuTest,
                         ::testing::Values("gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"));

}  // namespace
}  // namespace kforge::kernels::cuda::test
