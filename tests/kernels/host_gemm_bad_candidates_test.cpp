// The host gemm backend against misbehaving candidates: each must end in the status a person expects,
// with evidence that says why.
#include <gtest/gtest.h>

#include "host_gemm_test_support.hpp"
#include "kforge/kernels/gemm_problem.hpp"
#include "kforge/kernels/verification.hpp"

namespace kforge::kernels {
namespace {

// A correct naive kernel; `extra` runs after C is computed, `guard` before (return early to skip work).
std::string naive_source(const std::string& extra, const std::string& guard = "") {
  return R"(
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
)" + guard +
         R"(
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = s;
    }
)" + extra +
         "\n}\n";
}

class BadCandidate : public ::testing::Test {
 protected:
  CompileResult compile(const std::string& source, const std::string& name) {
    const auto c = testing::gemm_candidate({}, source);
    return backend_->compile(backend_->render(c), c, testing::context(settings_, scratch_.sub(name)));
  }
  VerifyResult verify(const std::string& source, const std::string& name) {
    const CompileResult compiled = compile(source, name);
    EXPECT_TRUE(compiled.ok) << compiled.log;
    backend_->load(compiled);
    return backend_->verify(testing::context(settings_, scratch_.sub(name)));
  }

  jobs::EvalSettings settings_ = [] {
    jobs::EvalSettings s = testing::small_settings(24);
    s.compile_flags = "-O1";  // hand-written candidates: compile speed over run speed
    return s;
  }();
  testing::ScratchDir scratch_;
  std::unique_ptr<Backend> backend_ = make_backend("host", "gemm");
};

TEST_F(BadCandidate, TheNaiveKernelItselfVerifies) {
  const VerifyResult v = verify(naive_source(""), "naive");
  EXPECT_EQ(v.status, jobs::Status::ok) << v.evidence;
}

TEST_F(BadCandidate, SyntaxErrorIsACompileErrorWithTheCompilerMessage) {
  const CompileResult r = compile("extern \"C\" void kforge_gemm( { this is not C++ }\n", "syntax");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("candidate.cpp"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
}

TEST_F(BadCandidate, CompileTimeoutIsACompileErrorThatSaysSo) {
  settings_.compile_timeout_s = 2;
  // Nested constant-evaluated loops: ~10^10 steps for the compiler, each loop under GCC's per-loop limit.
  const std::string bomb = R"(
constexpr long long spin() {
  long long s = 0;
  for (long long i = 0; i < 200000; ++i)
    for (long long j = 0; j < 200000; ++j) s += i ^ j;
  return s;
}
constexpr long long kForever = spin();
)" + naive_source("C[0] += static_cast<float>(kForever & 0);");
  const auto started = std::chrono::steady_clock::now();
  const CompileResult r = compile(bomb, "bomb");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("compiler timed out after 2 s"), std::string::npos) << r.log;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
}

TEST_F(BadCandidate, MissingEntryPointFailsToLoadNamingTheSymbol) {
  const CompileResult r = compile("extern \"C\" void some_other_name() {}\n", "nosymbol");
  ASSERT_TRUE(r.ok) << r.log;
  try {
    backend_->load(r);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("kforge_gemm"), std::string::npos) << e.what();
  }
}

TEST_F(BadCandidate, WrongValuesAreAWrongResult) {
  const VerifyResult v = verify(naive_source("C[(M - 1) * ldc + N - 1] *= 1.01f;"), "wrong");
  EXPECT_EQ(v.status, jobs::Status::wrong_result);
  EXPECT_NE(v.evidence.find("worst element"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("expected"), std::string::npos) << v.evidence;
}

TEST_F(BadCandidate, WritingNaNIsAWrongResult) {
  const VerifyResult v = verify(naive_source("C[0] = __builtin_nanf(\"\");"), "nan");
  EXPECT_EQ(v.status, jobs::Status::wrong_result);
  EXPECT_EQ(v.evidence.rfind("NaN at (0,0) for ", 0), 0u) << v.evidence;
}

TEST_F(BadCandidate, ModifyingAIsDetectedAsCheating) {
  const VerifyResult v = verify(naive_source("const_cast<float*>(A)[0] = 0.5f;"), "modify");
  EXPECT_EQ(v.status, jobs::Status::cheat_detected);
  EXPECT_EQ(v.evidence.rfind("input A modified at index 0", 0), 0u) << v.evidence;
}

TEST_F(BadCandidate, SkippingWorkOnceVerifiedIsCaughtWhileTimed) {
  // Correct for the verification calls, then returns at once: C keeps the poison of the timed call.
  const auto verify_calls = gemm::verification_shapes(gemm::main_shape(settings_)).size();
  const VerifyResult v = verify(
      naive_source("", "static unsigned calls = 0;\n  if (++calls > " + std::to_string(verify_calls) + "u) return;"),
      "lazy");
  ASSERT_EQ(v.status, jobs::Status::ok) << v.evidence;
  const TimeResult t = backend_->time(testing::context(settings_, scratch_.sub("lazy")));
  EXPECT_EQ(t.status, jobs::Status::cheat_detected);
  EXPECT_NE(t.evidence.find("timed call returned a wrong result"), std::string::npos) << t.evidence;
}

// The campaign's validation set (EvalSettings.validation_cases): a case that caught one candidate is checked
// for every later one, with exactly the inputs that caught it.

TEST_F(BadCandidate, ValidationCaseCatchesWhatTheStandardShapesMiss) {
  const std::string source = naive_source("if (M == 5) C[0] += 1.0f;");  // no standard shape has M = 5
  EXPECT_EQ(verify(source, "m5-clean").status, jobs::Status::ok);
  const std::string m5 = "M=5 N=4 K=3 lda=3 ldb=4 ldc=4 seed=7";
  settings_.validation_cases = {"B=1 H=1 T=3 D=4 seed=1", m5};  // another family's case is not this one's
  const VerifyResult v = verify(source, "m5-caught");
  EXPECT_EQ(v.status, jobs::Status::wrong_result);
  EXPECT_EQ(v.failed_case, m5);
  EXPECT_NE(v.evidence.find("caught by the campaign's validation set: " + m5), std::string::npos) << v.evidence;
}

TEST_F(BadCandidate, FailedCaseReproducesTheInputsThatCaughtIt) {
  // Wrong only for some inputs: whether the standard shapes catch it depends on the seed.
  const std::string source = naive_source("if (A[0] > 0.6f) C[0] += 1.0f;");
  const CompileResult compiled = compile(source, "input-dependent");
  ASSERT_TRUE(compiled.ok) << compiled.log;
  backend_->load(compiled);
  std::string caught;
  std::uint64_t missed_seed = 0;
  for (std::uint64_t seed = 1; seed < 200 && (caught.empty() || missed_seed == 0); ++seed) {
    const VerifyResult v = backend_->verify(testing::context(settings_, scratch_.path(), seed));
    if (v.status == jobs::Status::ok)
      missed_seed = seed;
    else if (caught.empty())
      caught = v.failed_case;
  }
  ASSERT_FALSE(caught.empty());
  ASSERT_NE(missed_seed, 0u);
  ASSERT_TRUE(parse_case(caught).has_value()) << caught;
  settings_.validation_cases = {caught};
  const VerifyResult v = backend_->verify(testing::context(settings_, scratch_.path(), missed_seed));
  EXPECT_EQ(v.status, jobs::Status::wrong_result) << "the case " << caught << " did not reproduce";
  EXPECT_EQ(v.failed_case, caught);
}

TEST(ValidationCaseText, RoundTripsAndRefusesMalformedText) {
  const std::string text = case_text({{"M", 7}, {"N", 5}}, 18446744073709551615ull);
  EXPECT_EQ(text, "M=7 N=5 seed=18446744073709551615");
  const auto parsed = parse_case(text);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->keys.at("M"), 7);
  EXPECT_EQ(parsed->seed, 18446744073709551615ull);
  for (const char* bad : {"M=7 N=5", "M=x seed=1", "M=7 seed=", "=7 seed=1", "M7 seed=1"})
    EXPECT_FALSE(parse_case(bad).has_value()) << bad;
  EXPECT_FALSE(gemm::Shape::from_case({{"M", 5}, {"N", 4}, {"K", 3}, {"lda", 2}, {"ldb", 4}, {"ldc", 4}}))
      << "lda below K";
  EXPECT_FALSE(gemm::Shape::from_case({{"M", 5}, {"N", 4}, {"K", 3}})) << "leading dimensions missing";
}

}  // namespace
}  // namespace kforge::kernels
