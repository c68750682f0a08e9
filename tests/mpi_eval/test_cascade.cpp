// evaluate_candidate before the sandbox: render and compile failures, compile-only runs, the record's fields.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "cascade.hpp"
#include "kforge/test_support/scratch_dir.hpp"
#include "sandbox_limits.hpp"
#include "timing_verdict.hpp"

namespace fs = std::filesystem;
using namespace kforge;

namespace {

class CascadeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    manifest_.target = "host";
    manifest_.family = "gemm";
    manifest_.backend = "host";
    manifest_.settings.compile_flags = "-O0";
    manifest_.settings.problem = {{"M", 16}, {"N", 16}, {"K", 16}};
  }

  jobs::Candidate candidate(const std::string& source) {
    jobs::Candidate c;
    c.family = "gemm";
    c.backend = "host";
    c.source = source;
    c.parents = {"0123456789abcdef0123456789abcdef"};
    c.op = "mutation";
    c.generation = 4;
    c.island = 1;
    jobs::assign_id(c);
    return c;
  }

  std::unique_ptr<kernels::Backend> backend_ = kernels::make_backend("host", "gemm");
  jobs::TaskManifest manifest_;
  test_support::ScratchDir dir_{"cascade-" + test_support::current_test_name()};
  const fs::path root_ = dir_.path();
};

}  // namespace

TEST_F(CascadeTest, SourceThatDoesNotCompileIsACompileErrorWithTheCompilerLog) {
  const jobs::Candidate c = candidate("extern \"C\" void kforge_gemm( this is not C++ }\n");
  const jobs::EvalRecord r = mpi_eval::evaluate_candidate(*backend_, c, manifest_, root_, 2);
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.evidence.find("error"), std::string::npos) << r.evidence;
  EXPECT_EQ(r.source, c.source);
  EXPECT_EQ(r.candidate_id, c.id);
  EXPECT_EQ(r.parents, c.parents);
  EXPECT_EQ(r.op, "mutation");
  EXPECT_EQ(r.generation, 4);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.target, "host");
  EXPECT_FALSE(fs::exists(root_ / c.id)) << "scratch folder left behind";
}

TEST_F(CascadeTest, GenomeMissingTemplateParametersIsACompileErrorNamingTheRenderStep) {
  jobs::Candidate c = candidate("");
  const jobs::EvalRecord r = mpi_eval::evaluate_candidate(*backend_, c, manifest_, root_, 0);
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_EQ(r.evidence.rfind("could not render the source", 0), 0u) << r.evidence;
}

TEST_F(CascadeTest, CompileOnlyStopsAfterCompilingWithoutTimes) {
  manifest_.settings.compile_only = true;
  const jobs::Candidate c = candidate(
      "extern \"C\" void kforge_gemm(int, int, int, const float*, int, const float*, "
      "int, float*, int) { for (;;) {} }\n");
  const jobs::EvalRecord r = mpi_eval::evaluate_candidate(*backend_, c, manifest_, root_, 0, {.keep_scratch = true});
  EXPECT_EQ(r.status, jobs::Status::ok) << r.evidence;
  EXPECT_EQ(r.sample_count, 0);
  EXPECT_TRUE(std::isnan(r.time_median_ms));
  EXPECT_GE(r.compile_ms, 0.0);
  EXPECT_TRUE(fs::exists(root_ / c.id)) << "keep_scratch should keep the folder";
}

TEST_F(CascadeTest, CandidateForAnotherBackendIsNotCompiled) {
  jobs::Candidate c = candidate("int x;\n");
  c.backend = "cuda";
  const jobs::EvalRecord r = mpi_eval::evaluate_candidate(*backend_, c, manifest_, root_, 0);
  EXPECT_EQ(r.status, jobs::Status::infra_error);
  EXPECT_NE(r.evidence.find("cuda"), std::string::npos) << r.evidence;
  EXPECT_TRUE(std::isnan(r.compile_ms));
}

TEST(CascadeLimits, DeviceBackendsGetNoAddressSpaceCapWhileOtherBackendsKeepIt) {
  jobs::EvalSettings s;
  s.memory_limit_mb = 512;
  s.file_limit_mb = 8;
  for (const auto& [backend, family] : {std::pair{"host", "gemm"}, {"host", "engine"}, {"replay", "gemm"}}) {
    const mpi_eval::Limits l = mpi_eval::limits_for(s, *kernels::make_backend(backend, family));
    EXPECT_TRUE(l.limit_address_space) << backend << "/" << family;
    EXPECT_EQ(l.memory_bytes, 512LL << 20) << backend;
    // The host backend's child starts the confined candidate process; every other child may not fork.
    EXPECT_EQ(l.forbid_processes, std::string(backend) != "host") << backend << "/" << family;
  }
#ifdef KFORGE_HAVE_CUDA
  for (const char* family : {"gemm", "engine"}) {
    const mpi_eval::Limits cuda = mpi_eval::limits_for(s, *kernels::make_backend("cuda", family));
    EXPECT_FALSE(cuda.limit_address_space) << "a CUDA context reserves more address space than any memory limit";
    EXPECT_EQ(cuda.file_bytes, 8LL << 20) << "the other limits stay";
    EXPECT_EQ(cuda.wall_s, s.wall_timeout_s);
    EXPECT_TRUE(cuda.forbid_processes);
  }
#endif
}

namespace {

// A correct naive kernel that sleeps 3 ms on every other call: its timed samples alternate fast and slow.
constexpr const char* kAlternatingSource = R"(#include <time.h>
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
                            int ldc) {
  static int calls = 0;
  if (++calls % 2 == 0) {
    timespec pause{0, 3000000};
    nanosleep(&pause, nullptr);
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = s;
    }
})";

jobs::EvalRecord timed_record(double spread, int samples, jobs::Status status = jobs::Status::ok) {
  jobs::EvalRecord r;
  r.status = status;
  r.time_spread_rel = spread;
  r.time_spread_iqr = spread;
  r.sample_count = samples;
  return r;
}

}  // namespace

TEST(TimingVerdict, SpreadNotUnderTheTargetIsNoisyOnlyForOkRecordsWithSamples) {
  EXPECT_TRUE(mpi_eval::misses_target_spread(timed_record(0.20, 15), 0.05));
  EXPECT_TRUE(mpi_eval::misses_target_spread(timed_record(0.05, 15), 0.05)) << "sampling stops only under the target";
  EXPECT_FALSE(mpi_eval::misses_target_spread(timed_record(0.01, 3), 0.05));
  EXPECT_FALSE(mpi_eval::misses_target_spread(timed_record(0.20, 1), 0.05)) << "one sample has no spread";
  EXPECT_FALSE(mpi_eval::misses_target_spread(timed_record(jobs::kNaN, 5), 0.05));
  EXPECT_FALSE(mpi_eval::misses_target_spread(timed_record(0.20, 15, jobs::Status::wrong_result), 0.05));
  jobs::EvalRecord r = timed_record(0.25, 15);
  r.evidence = "verified";
  mpi_eval::judge_timing(r, 0.05);
  EXPECT_TRUE(r.timing_noisy);
  EXPECT_NE(r.evidence.find("timing noisy: interquartile spread 25.0% over 15 samples, target under 5.0% (max - min: "
                            "25.0%)"),
            std::string::npos)
      << r.evidence;
}

TEST(TimingVerdict, OneOutlierAmongManySamplesIsNotNoise) {
  jobs::EvalRecord r = timed_record(0.9, 15);  // (max - min) / median: one sample 90% slow
  r.time_spread_iqr = 0.01;                    // the middle half agrees within 1%
  EXPECT_FALSE(mpi_eval::misses_target_spread(r, 0.05));
}

TEST_F(CascadeTest, CandidateWhoseSamplesDisagreeIsFlaggedNoisy) {
  manifest_.settings.warmup = 1;
  manifest_.settings.min_repeats = 4;
  manifest_.settings.max_repeats = 4;
  manifest_.settings.target_spread = 0.05;
  manifest_.settings.time_cap_s = 10;
  const jobs::EvalRecord r =
      mpi_eval::evaluate_candidate(*backend_, candidate(kAlternatingSource), manifest_, root_, 0);
  ASSERT_EQ(r.status, jobs::Status::ok) << r.evidence;
  EXPECT_EQ(r.sample_count, 4);
  EXPECT_GT(r.time_spread_rel, 0.05);
  EXPECT_TRUE(r.timing_noisy) << r.evidence;
  EXPECT_NE(r.evidence.find("timing noisy"), std::string::npos) << r.evidence;
}

TEST_F(CascadeTest, SamplesWithinTheTargetAreNotFlagged) {
  manifest_.settings.min_repeats = 2;
  manifest_.settings.max_repeats = 4;
  manifest_.settings.target_spread = 1000.0;  // any two samples agree within this
  const jobs::EvalRecord r =
      mpi_eval::evaluate_candidate(*backend_, candidate(kAlternatingSource), manifest_, root_, 0);
  ASSERT_EQ(r.status, jobs::Status::ok) << r.evidence;
  EXPECT_FALSE(r.timing_noisy) << r.evidence;
  EXPECT_EQ(r.evidence.find("timing noisy"), std::string::npos) << r.evidence;
}
