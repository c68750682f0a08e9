// The host families' adversarial input classes (docs/isolation.md, "Inputs no candidate can count on"): kernels
// that are right for the ordinary random inputs and break at an edge of what the family allows are caught before
// timing, as wrong_result naming the class, and the case that caught them is one the validation set can replay.
#include <gtest/gtest.h>

#include <cmath>

#include "host_gemm_test_support.hpp"
#include "kforge/kernels/gemm_problem.hpp"
#include "kforge/kernels/kda_problem.hpp"
#include "kforge/kernels/verification.hpp"

namespace kforge::kernels {
namespace {

// A correct naive gemm whose accumulator is scaled by 2^50 and back (exact for inputs of order one), so that
// products near 2^80 overflow: the shape of a kernel that pre-scales to keep precision in a narrow type.
constexpr const char* kScaledAccumulatorGemm = R"(
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += (A[i * lda + k] * B[k * ldb + j]) * 0x1p50f;
      C[i * ldc + j] = s * 0x1p-50f;
    }
}
)";

// A correct naive gemm that "cleans up" results below 1e-20: harmless for inputs of order one.
constexpr const char* kFlushingGemm = R"(
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = (s < 1e-20f && s > -1e-20f) ? 0.0f : s;
    }
}
)";

// The per-token KDA recurrence, right, except that it passes the output through e^{-G} and back, with G the
// gate summed over windows of 192 tokens, as a chunked form does with its chunk's cumulative gate. Ordinary gates
// (alpha in [0.5, 1)) keep e^{-G} below e^70; every gate at its lower bound (log 0.5) overflows fp32 after 128
// tokens: the published failure of agent-evolved KDA kernels that returned NaN there.
constexpr const char* kWindowedKda = R"(
#include <cmath>
#include <vector>
extern "C" void kforge_kda(int B, int H, int T, int D, const float* q, const float* k, const float* v, const float* g,
                           const float* beta, float* o) {
  std::vector<float> S((size_t)D * D), ks(D);
  const float scale = 1.0f / std::sqrt((float)D);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      for (auto& x : S) x = 0.f;
      float G = 0.f;
      for (int t = 0; t < T; ++t) {
        if (t % 192 == 0) G = 0.f;
        const size_t row = ((size_t)b * T + t) * H + h, at = row * D;
        G += g[at];
        for (int c = 0; c < D; ++c) {
          const float a = std::exp(g[at + c]);
          for (int col = 0; col < D; ++col) S[c * D + col] *= a;
        }
        for (int col = 0; col < D; ++col) ks[col] = 0.f;
        for (int c = 0; c < D; ++c)
          for (int col = 0; col < D; ++col) ks[col] += k[at + c] * S[c * D + col];
        for (int col = 0; col < D; ++col) {
          const float d = beta[row] * (v[at + col] - ks[col]);
          for (int c = 0; c < D; ++c) S[c * D + col] += k[at + c] * d;
        }
        const float e = std::exp(-G);
        for (int col = 0; col < D; ++col) {
          float acc = 0.f;
          for (int c = 0; c < D; ++c) acc += q[at + c] * S[c * D + col];
          o[at + col] = (acc * scale * e) / e;
        }
      }
    }
}
)";

VerifyResult verify_source(const std::string& family, const std::string& source, jobs::EvalSettings settings,
                           const testing::ScratchDir& scratch, const std::string& name) {
  const auto backend = make_backend("host", family);
  jobs::Candidate c = testing::gemm_candidate({}, source);
  c.family = family;
  const EvalContext ctx = testing::context(settings, scratch.sub(name));
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  EXPECT_TRUE(compiled.ok) << name << ":\n" << compiled.log;
  if (!compiled.ok) return {};
  backend->load(compiled);
  return backend->verify(ctx);
}

jobs::EvalSettings gemm_settings() {
  jobs::EvalSettings s = testing::small_settings(24);
  s.compile_flags = "-O1";
  return s;
}

jobs::EvalSettings kda_settings() {
  jobs::EvalSettings s = testing::small_settings();
  s.problem = {{"B", 1}, {"H", 1}, {"T", 64}, {"D", 32}};
  s.compile_flags = "-O1";
  return s;
}

// The failure names the class, comes after every ordinary shape passed (the classes are checked last), and its
// case text replays through the validation set: the same class, the same inputs, the same verdict.
void expect_caught_by_class(const std::string& family, const char* source, const jobs::EvalSettings& settings,
                            const std::string& inputs) {
  testing::ScratchDir scratch;
  const VerifyResult v = verify_source(family, source, settings, scratch, "caught");
  ASSERT_EQ(v.status, jobs::Status::wrong_result) << v.evidence;
  EXPECT_NE(v.evidence.find("with " + inputs + " inputs"), std::string::npos) << v.evidence;
  const auto parsed = parse_case(v.failed_case);
  ASSERT_TRUE(parsed.has_value()) << v.failed_case;
  EXPECT_EQ(parsed->inputs, inputs) << v.failed_case;
  // Replayed as a validation case under another seed, the case itself still catches the kernel.
  jobs::EvalSettings replay = settings;
  replay.validation_cases = {v.failed_case};
  const auto backend = make_backend("host", family);
  jobs::Candidate c = testing::gemm_candidate({}, source);
  c.family = family;
  const EvalContext ctx = testing::context(replay, scratch.sub("replay"), 987654321);
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  backend->load(compiled);
  const VerifyResult again = backend->verify(ctx);
  EXPECT_EQ(again.status, jobs::Status::wrong_result) << again.evidence;
}

TEST(AdversarialInputs, GemmScaledAccumulatorIsRightForOrdinaryInputsAndWrongForHugeOnes) {
  expect_caught_by_class("gemm", kScaledAccumulatorGemm, gemm_settings(), "huge");
}

TEST(AdversarialInputs, GemmFlushingSmallResultsIsWrongForTinyInputs) {
  expect_caught_by_class("gemm", kFlushingGemm, gemm_settings(), "tiny");
}

TEST(AdversarialInputs, KdaKernelThatOverflowsWithTheGateAtItsLowerBoundIsWrongResult) {
  expect_caught_by_class("kda", kWindowedKda, kda_settings(), "gate_low");
}

TEST(AdversarialInputs, TheHonestTemplatesAndReferencesPassEveryClass) {
  // The naive double-free references of both families, through every verification shape, classes included.
  for (const gemm::Shape& shape : gemm::verification_shapes(gemm::Shape{40, 37, 29, 29, 37, 37, {}})) {
    std::mt19937_64 rng(5);
    const auto outcome = gemm::check_kernel(
        [](gemm::Operands& ops) {
          const gemm::Shape& s = ops.shape;
          for (int i = 0; i < s.M; ++i)
            for (int j = 0; j < s.N; ++j) {
              double acc = 0.0;
              for (int k = 0; k < s.K; ++k) acc += double(ops.a[i * s.lda + k]) * ops.b[k * s.ldb + j];
              ops.c[i * s.ldc + j] = static_cast<float>(acc);
            }
        },
        shape, rng);
    EXPECT_EQ(outcome.status, jobs::Status::ok) << shape.text() << ": " << outcome.evidence;
  }
  std::size_t classes = 0;
  for (const kda::Shape& shape : kda::verification_shapes(kda::Shape{1, 2, 64, 16, {}})) {
    classes += !shape.inputs.empty();
    std::mt19937_64 rng(6);
    const auto outcome = kda::check_kernel(
        [](kda::Inputs& in) {
          std::vector<double> state, ref;
          const kda::Shape& s = in.shape;
          for (int b = 0; b < s.B; ++b)
            for (int h = 0; h < s.H; ++h) {
              kda::recurrence_head(s, b, h, in.q.data(), in.k.data(), in.v.data(), in.g.data(), in.beta.data(), state,
                                   ref);
              for (int t = 0; t < s.T; ++t)
                for (int c = 0; c < s.D; ++c)
                  in.o[((std::size_t(b) * s.T + t) * s.H + h) * s.D + c] = static_cast<float>(ref[t * s.D + c]);
            }
        },
        shape, rng);
    EXPECT_EQ(outcome.status, jobs::Status::ok) << shape.text() << ": " << outcome.evidence;
  }
  EXPECT_EQ(classes, kda::kInputClasses.size() + 1) << "every class once, gate_low also at T = 1";
}

TEST(AdversarialInputs, ClassesDrawWhatTheyPromise) {
  std::mt19937_64 rng(8);
  const gemm::Operands huge = gemm::random_operands(gemm::Shape{4, 4, 4, 4, 4, 4, "huge"}, rng);
  for (float x : huge.a) EXPECT_LE(std::fabs(x), std::ldexp(1.0f, 40));
  EXPECT_GT(std::fabs(huge.a[0]) + std::fabs(huge.a[1]), std::ldexp(1.0f, 30));
  const kda::Inputs low = kda::random_inputs(kda::Shape{1, 1, 3, 8, "gate_low"}, rng);
  for (float g : low.g) EXPECT_EQ(g, std::log(0.5f));
  const kda::Inputs high = kda::random_inputs(kda::Shape{1, 1, 3, 8, "gate_high"}, rng);
  for (float g : high.g) EXPECT_EQ(g, 0.f);
  EXPECT_FALSE(gemm::Shape::from_case({{"M", 5}, {"N", 4}, {"K", 3}, {"lda", 3}, {"ldb", 4}, {"ldc", 4}}, "gate_low"))
      << "another family's class";
  EXPECT_TRUE(kda::Shape::from_case({{"B", 1}, {"H", 1}, {"T", 3}, {"D", 8}}, "gate_low"));
}

TEST(AdversarialInputs, CaseTextCarriesTheClassAndRefusesMalformedOnes) {
  const std::string text = case_text({{"M", 7}, {"N", 5}}, 3, "huge");
  EXPECT_EQ(text, "M=7 N=5 inputs=huge seed=3");
  const auto parsed = parse_case(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->inputs, "huge");
  EXPECT_EQ(parsed->keys.count("inputs"), 0u);
  for (const char* bad :
       {"M=7 inputs= seed=1", "M=7 inputs=Huge seed=1", "M=7 inputs=a inputs=b seed=1", "M=7 inputs=a-b seed=1"})
    EXPECT_FALSE(parse_case(bad).has_value()) << bad;
}

}  // namespace
}  // namespace kforge::kernels
