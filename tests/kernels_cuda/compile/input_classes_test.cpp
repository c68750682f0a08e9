// The cuda families' adversarial input classes (docs/isolation.md, "Inputs no candidate can count on"), checked
// without a GPU: each class draws what it promises, the host reference check passes right outputs for it and
// fails the outputs a kernel with the matching weakness would produce (emulated here on the host: a fake stands
// in for the GPU), and validation-set text selects and replays exactly one family's cases.
#include <gtest/gtest.h>

#include <cmath>

#include "gemm/gemm_family.hpp"
#include "host_data.hpp"
#include "kda/kda_family.hpp"
#include "kforge/jobs/validation_case.hpp"
#include "rmsnorm/rmsnorm_family.hpp"

namespace kforge::kernels::cuda {
namespace {

std::vector<InputClass> classes_of(const CudaFamily& f, const Problem& main) {
  std::vector<InputClass> out;
  for (const Problem& p : f.verification_problems(main))
    if (input_class(p) != InputClass::ordinary) out.push_back(input_class(p));
  return out;
}

TEST(CudaInputClasses, EveryFamilyChecksItsClasses) {
  const jobs::EvalSettings none;
  EXPECT_EQ(classes_of(GemmFamily{}, GemmFamily{}.problem(none)),
            (std::vector<InputClass>{InputClass::huge, InputClass::tiny}));
  EXPECT_EQ(
      classes_of(KdaFamily{}, KdaFamily{}.problem(none)),
      (std::vector<InputClass>{InputClass::gate_low, InputClass::gate_low, InputClass::gate_high, InputClass::v_huge,
                               InputClass::v_tiny}));  // the first gate_low is a variable-length batch
  EXPECT_EQ(classes_of(RmsnormFamily{}, RmsnormFamily{}.problem(none)),
            (std::vector<InputClass>{InputClass::zero_rows, InputClass::large_rows}));
  EXPECT_EQ(problem_text(with_inputs({{"M", 1}}, InputClass::gate_low)), "M=1 inputs=gate_low");
  EXPECT_THROW(input_class({{"inputs", 99}}), std::invalid_argument);
}

// y of a row-wise RMSNorm on the host, as a kernel computing sum(x^2) in `Sum` with epsilon `eps` would.
template <typename Sum>
std::vector<std::uint16_t> rmsnorm_outputs(const HostCase& hc, int rows, int hidden, float eps) {
  const auto x = from_bytes<std::uint16_t>(hc.inputs[0]), w = from_bytes<std::uint16_t>(hc.inputs[1]);
  std::vector<std::uint16_t> y(x.size());
  for (int r = 0; r < rows; ++r) {
    Sum sum = 0;
    for (int i = 0; i < hidden; ++i) {
      const Sum xi = static_cast<Sum>(bf16_to_float(x[r * hidden + i]));
      sum += xi * xi;
    }
    const float inv = 1.0f / std::sqrt(static_cast<float>(sum) / hidden + eps);
    for (int i = 0; i < hidden; ++i)
      y[r * hidden + i] = float_to_bf16(bf16_to_float(x[r * hidden + i]) * inv * bf16_to_float(w[i]));
  }
  return y;
}

TEST(CudaInputClasses, RmsnormZeroRowsCatchAMissingEpsilonAndLargeRowsAHalfPrecisionSum) {
  const RmsnormFamily norm;
  std::mt19937_64 rng(4);
  const HostCase zeros = norm.make_case(with_inputs({{"rows", 6}, {"hidden", 64}}, InputClass::zero_rows), rng, true);
  const auto x = from_bytes<std::uint16_t>(zeros.inputs[0]);
  EXPECT_EQ(x[1 * 64 + 5], 0u) << "row 1 of every 3 is zero";
  EXPECT_EQ(zeros.check({to_bytes(rmsnorm_outputs<float>(zeros, 6, 64, RmsnormFamily::kEps))}).status,
            jobs::Status::ok);
  const CheckOutcome no_eps = zeros.check({to_bytes(rmsnorm_outputs<float>(zeros, 6, 64, 0.f))});
  EXPECT_EQ(no_eps.status, jobs::Status::wrong_result) << "0 / sqrt(0) is NaN";

  const HostCase large = norm.make_case(with_inputs({{"rows", 6}, {"hidden", 64}}, InputClass::large_rows), rng, true);
  EXPECT_GT(std::fabs(bf16_to_float(from_bytes<std::uint16_t>(large.inputs[0])[3])), 1e9f);
  EXPECT_EQ(large.check({to_bytes(rmsnorm_outputs<float>(large, 6, 64, RmsnormFamily::kEps))}).status,
            jobs::Status::ok);
  // A sum of squares kept in _Float16 (max 65504) overflows for rows near 2^40.
  const CheckOutcome half = large.check({to_bytes(rmsnorm_outputs<_Float16>(large, 6, 64, RmsnormFamily::kEps))});
  EXPECT_EQ(half.status, jobs::Status::wrong_result) << half.evidence;
}

TEST(CudaInputClasses, GemmHugeAndTinyScaleTheOperandsAndTheTolerance) {
  const GemmFamily gemm;
  for (const InputClass inputs : {InputClass::huge, InputClass::tiny}) {
    std::mt19937_64 rng(5);
    const HostCase hc = gemm.make_case(with_inputs({{"M", 9}, {"N", 16}, {"K", 24}}, inputs), rng, true);
    const auto a = from_bytes<std::uint16_t>(hc.inputs[0]), b = from_bytes<std::uint16_t>(hc.inputs[1]);
    std::vector<float> c(9 * 16);
    for (int i = 0; i < 9; ++i)
      for (int j = 0; j < 16; ++j) {
        double acc = 0;
        for (int k = 0; k < 24; ++k) acc += double(bf16_to_float(a[i * 24 + k])) * bf16_to_float(b[k * 16 + j]);
        c[i * 16 + j] = static_cast<float>(acc);
      }
    EXPECT_EQ(hc.check({to_bytes(c)}).status, jobs::Status::ok) << input_class_name(inputs);
    const float expected = c[3 * 16 + 4];
    c[3 * 16 + 4] = inputs == InputClass::tiny ? 0.f : INFINITY;  // flushed to zero / overflowed
    EXPECT_EQ(hc.check({to_bytes(c)}).status, jobs::Status::wrong_result)
        << input_class_name(inputs) << " " << expected;
    EXPECT_GT(std::fabs(bf16_to_float(a[0])) + std::fabs(bf16_to_float(a[1])),
              inputs == InputClass::huge ? 1e10f : 1e-15f);
  }
}

TEST(CudaInputClasses, KdaGateAndValueClasses) {
  const KdaFamily kda;
  std::mt19937_64 rng(6);
  const HostCase low = kda.make_case(with_inputs({{"B", 1}, {"T", 3}, {"H", 1}}, InputClass::gate_low), rng, true);
  for (float g : from_bytes<float>(low.inputs[3])) EXPECT_EQ(g, std::log(0.5f));
  const HostCase high = kda.make_case(with_inputs({{"B", 1}, {"T", 3}, {"H", 1}}, InputClass::gate_high), rng, true);
  for (float g : from_bytes<float>(high.inputs[3])) EXPECT_EQ(g, 0.f);
  const HostCase tiny = kda.make_case(with_inputs({{"B", 1}, {"T", 4}, {"H", 1}}, InputClass::v_tiny), rng, true);
  KdaInputs in;
  in.B = 1, in.T = 4, in.H = 1;
  in.q = from_bytes<float>(tiny.inputs[0]), in.k = from_bytes<float>(tiny.inputs[1]);
  in.v = from_bytes<float>(tiny.inputs[2]), in.g = from_bytes<float>(tiny.inputs[3]);
  in.beta = from_bytes<float>(tiny.inputs[4]);
  for (float v : in.v) EXPECT_LT(std::fabs(v), 1e-14f);
  std::vector<double> ro, rs;
  kda_reference_head(in, 0, 0, ro, rs);
  std::vector<float> o(ro.begin(), ro.end()), state(rs.begin(), rs.end());
  EXPECT_EQ(tiny.check({to_bytes(o), to_bytes(state)}).status, jobs::Status::ok);
  // All zeros would pass an absolute tolerance of 1e-3; scaled with v, it does not.
  std::fill(o.begin(), o.end(), 0.f);
  EXPECT_EQ(tiny.check({to_bytes(o), to_bytes(state)}).status, jobs::Status::wrong_result);
}

TEST(CudaInputClasses, ValidationCasesOfTheFamilyAreReplayedWithTheirSeedAndOthersIgnored) {
  const GemmFamily gemm;
  const Problem main = gemm.problem(jobs::EvalSettings{});
  const auto standard = verification_cases(gemm, main, {}, 11);
  ASSERT_FALSE(standard.empty());
  EXPECT_NE(standard[0].seed, standard[1].seed) << "a seed per check";
  const std::string mine = "K=136 M=67 N=200 inputs=huge seed=42";
  const auto cases = verification_cases(gemm, main,
                                        {mine, "M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=1",  // host gemm's
                                         "K=136 M=67 N=200 inputs=gate_low seed=1",     // a class gemm does not have
                                         "K=7 M=67 N=200 seed=1",  // K not a multiple of 8: refused by the family
                                         "rows=3 hidden=8 seed=1"},
                                        11);
  ASSERT_EQ(cases.size(), standard.size() + 1);
  EXPECT_TRUE(cases.back().from_validation_set);
  EXPECT_EQ(cases.back().seed, 42u);
  EXPECT_EQ(case_text_of(cases.back()), mine) << "the text round-trips";
  EXPECT_EQ(input_class(cases.back().problem), InputClass::huge);
}

}  // namespace
}  // namespace kforge::kernels::cuda
