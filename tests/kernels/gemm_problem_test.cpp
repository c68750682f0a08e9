// The gemm family's checks and the timing policy, with in-process kernels (no compiler involved).
#include <gtest/gtest.h>

#include <cmath>

#include "gemm/gemm_baselines.hpp"
#include "kforge/kernels/gemm_problem.hpp"
#include "kforge/kernels/timing.hpp"

namespace kforge::kernels {
namespace {

void skip_last_column(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  host::reference_gemm(M, N - 1, K, A, lda, B, ldb, C, ldc);
}
void write_past_the_row(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  host::reference_gemm(M, N, K, A, lda, B, ldb, C, ldc);
  C[N] = 0.0f;  // the first padding element of row 0 when ldc > N, else the start of row 1 (then harmless)
  if (ldc == N) C[static_cast<std::ptrdiff_t>(M) * ldc] = 0.0f;  // past the end of C
}
void off_by_a_little(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  host::reference_gemm(M, N, K, A, lda, B, ldb, C, ldc);
  C[static_cast<std::ptrdiff_t>(M - 1) * ldc + N - 1] += 1e-3f;
}

gemm::CheckOutcome check(gemm::GemmFn kernel, const gemm::Shape& shape) {
  std::mt19937_64 rng(7);
  return gemm::check_kernel(kernel, shape, rng);
}

TEST(GemmProblem, MainShapeDefaultsTo256AndRejectsNonPositiveSizes) {
  jobs::EvalSettings s;
  EXPECT_EQ(gemm::main_shape(s).text(), "256x256x256");
  s.problem = {{"M", 10}, {"N", 20}, {"K", 30}};
  EXPECT_EQ(gemm::main_shape(s).text(), "10x20x30");
  s.problem["K"] = 0;
  EXPECT_THROW(gemm::main_shape(s), std::invalid_argument);
}

TEST(GemmProblem, VerificationShapesIncludeEdgesAndPaddedLeadingDimensions) {
  const auto shapes = gemm::verification_shapes(gemm::Shape{64, 64, 64, 64, 64, 64, {}});
  EXPECT_EQ(shapes.front().text(), "64x64x64");
  bool tiny = false, padded = false, deep = false;
  for (const auto& s : shapes) {
    tiny |= s.M == 1 && s.N == 1 && s.K == 1;
    padded |= s.lda > s.K && s.ldb > s.N && s.ldc > s.N;
    deep |= s.K > 1024;
  }
  EXPECT_TRUE(tiny && padded && deep);
}

TEST(GemmProblem, TheNaiveReferencePassesEveryShape) {
  for (const auto& shape : gemm::verification_shapes(gemm::Shape{40, 37, 29, 29, 37, 37, {}})) {
    const auto outcome = check(&host::reference_gemm, shape);
    EXPECT_EQ(outcome.status, jobs::Status::ok) << shape.text() << ": " << outcome.evidence;
    if (shape.inputs.empty()) {
      EXPECT_LT(outcome.max_abs_error, 1e-4);  // huge/tiny inputs scale the error
    }
    EXPECT_LT(outcome.max_rel_error, 1e-5);
  }
}

TEST(GemmProblem, AnUnwrittenElementShowsUpAsNaN) {
  const auto outcome = check(&skip_last_column, gemm::Shape{7, 5, 3, 3, 5, 5, {}});
  EXPECT_EQ(outcome.status, jobs::Status::wrong_result);
  EXPECT_EQ(outcome.evidence, "NaN at (0,4) for 7x5x3");
}

TEST(GemmProblem, WritesOutsideCAreWrongResults) {
  for (const gemm::Shape& shape : {gemm::Shape{7, 5, 3, 3, 5, 8, {}}, gemm::Shape{7, 5, 3, 3, 5, 5, {}}}) {
    const auto outcome = check(&write_past_the_row, shape);
    EXPECT_EQ(outcome.status, jobs::Status::wrong_result) << shape.text();
    EXPECT_NE(outcome.evidence.find("wrote outside C"), std::string::npos) << outcome.evidence;
  }
}

TEST(GemmProblem, AnErrorBeyondTheBoundNamesTheWorstElement) {
  const auto outcome = check(&off_by_a_little, gemm::Shape{9, 6, 4, 4, 6, 6, {}});
  EXPECT_EQ(outcome.status, jobs::Status::wrong_result);
  EXPECT_NE(outcome.evidence.find("worst element (8,5)"), std::string::npos) << outcome.evidence;
  EXPECT_NE(outcome.evidence.find("bound"), std::string::npos) << outcome.evidence;
}

TEST(Timing, StopsAtMaxRepeatsAndRunsTheHooksOutsideTheTimer) {
  TimingPolicy p;
  p.warmup = 2;
  p.min_repeats = 3;
  p.max_repeats = 5;
  p.target_spread = -1.0;  // never satisfied: only max_repeats can stop it
  p.time_cap_s = 100.0;
  int calls = 0, befores = 0, afters = 0;
  const auto t = sample_calls(
      p, [&] { ++calls; }, [&] { ++befores; },
      [&] {
        ++afters;
        return std::string();
      });
  EXPECT_EQ(t.samples_ms.size(), 5u);
  EXPECT_EQ(calls, 7);
  EXPECT_EQ(befores, 7);
  EXPECT_EQ(afters, 5);
  EXPECT_TRUE(t.failure.empty());
}

TEST(Timing, StopsAtTheFirstFailedCheck) {
  TimingPolicy p;
  p.max_repeats = 10;
  p.target_spread = -1.0;
  int n = 0;
  const auto t = sample_calls(
      p, [] {}, {}, [&] { return ++n == 2 ? std::string("bad output") : std::string(); });
  EXPECT_EQ(t.samples_ms.size(), 2u);
  EXPECT_EQ(t.failure, "bad output");
}

TEST(Timing, MedianAndSpread) {
  EXPECT_DOUBLE_EQ(median_of({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median_of({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_DOUBLE_EQ(spread_of({1.0, 2.0, 3.0}), 1.0);
  EXPECT_DOUBLE_EQ(spread_of({5.0}), 0.0);
}

TEST(PhysicalCeiling, FlagsOnlyRatesAboveTheCeiling) {
  const double flop = 2.0 * 384 * 384 * 384;                                        // 113 MFLOP
  EXPECT_FALSE(beyond_physical_ceiling(flop, 1.0, kHostCeilingFlopPerS));           // 113 GFLOP/s: a fast core
  const auto evidence = beyond_physical_ceiling(flop, 0.01, kHostCeilingFlopPerS);  // 11 TFLOP/s
  ASSERT_TRUE(evidence);
  EXPECT_NE(evidence->find("faster than physically possible"), std::string::npos);
  EXPECT_TRUE(beyond_physical_ceiling(flop, 0.0, kHostCeilingFlopPerS));
}

}  // namespace
}  // namespace kforge::kernels
