// The activation contract (docs/engines.md, "Activations"): an engine that declares bf16 activations is held to
// kLogitRelToleranceBf16Activations instead of 1e-4. The reference's bf16_operands arithmetic is what such an
// engine honestly computes: its rounding is material (beyond the fp32 tolerance), inside the activation contract's,
// the same through step() and teacher_forced(), and verification holds a candidate to the tolerance it is given.
#include <gtest/gtest.h>

#include <cmath>

#include "engine_model_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/engine_verification.hpp"

namespace kforge::kernels::engine {
namespace {

using model_testing::small_model;

double worst_rel_error(const std::vector<double>& want, const std::vector<double>& got, std::int64_t vocab) {
  double worst = 0.0;
  for (std::size_t at = 0; at < want.size(); at += static_cast<std::size_t>(vocab)) {
    double scale = 1.0, err = 0.0;
    for (std::int64_t i = 0; i < vocab; ++i) {
      scale = std::max(scale, std::abs(want[at + static_cast<std::size_t>(i)]));
      err = std::max(err, std::abs(want[at + static_cast<std::size_t>(i)] - got[at + static_cast<std::size_t>(i)]));
    }
    worst = std::max(worst, err / scale);
  }
  return worst;
}

TEST(ActivationContract, EachDeclarationHasItsTolerance) {
  EXPECT_EQ(logit_tolerance(parse_activation_precision("fp32")), kLogitRelTolerance);
  EXPECT_EQ(logit_tolerance(parse_activation_precision("bf16")), kLogitRelToleranceBf16Activations);
  EXPECT_STREQ(activation_precision_name(ActivationPrecision::bf16), "bf16");
  try {
    parse_activation_precision("fp16");
    ADD_FAILURE() << "fp16 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'fp16'"), std::string::npos) << e.what();
  }
  // A row off by 1e-3 of its scale: wrong for an fp32 engine, right for a bf16-activation one; 3x the activation
  // tolerance is wrong for both.
  const std::vector<double> ref = {10.0, -3.0, 0.5, 2.0};
  const std::vector<float> near = {10.0f, -3.0f, 0.5f + 1e-2f, 2.0f};
  EXPECT_FALSE(compare_logits(ref, near, 4, logit_tolerance(ActivationPrecision::fp32)).ok);
  EXPECT_TRUE(compare_logits(ref, near, 4, logit_tolerance(ActivationPrecision::bf16)).ok);
  const auto far = static_cast<float>(0.5 + 30.0 * kLogitRelToleranceBf16Activations);
  EXPECT_FALSE(
      compare_logits(ref, std::vector<float>{10.0f, -3.0f, far, 2.0f}, 4, logit_tolerance(ActivationPrecision::bf16))
          .ok);
}

// step() in chunks and decodes, and teacher_forced() on the whole sequence, round the same operands: they agree as
// the exact paths do; and against exact arithmetic the rounding shows, inside the activation contract.
TEST(ActivationContract, Bf16OperandsAreMaterialInsideTheContractAndTheSameOnBothPaths) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    const auto m = small_model(arch);
    const Weights w = random_weights(m);
    const std::vector<std::int32_t> seq = {5, 17, 200, 3, 99, 41, 7, 255, 0, 64, 12, 8};
    ReferenceEngine exact(m, w, 1, 32), rounded(m, w, 1, 32, ReferenceArithmetic::bf16_operands);
    std::vector<double> by_steps, exact_steps;
    const auto feed = [&](std::int64_t start, std::int64_t count) {
      const std::vector<SeqDesc> seqs{{0, start, count}};
      const std::vector<std::int32_t> tokens(seq.begin() + start, seq.begin() + start + count);
      const auto r = rounded.step(seqs, tokens), e = exact.step(seqs, tokens);
      by_steps.insert(by_steps.end(), r.begin(), r.end());
      exact_steps.insert(exact_steps.end(), e.begin(), e.end());
    };
    feed(0, 5);
    feed(5, 4);
    for (std::int64_t t = 9; t < 12; ++t) feed(t, 1);
    const std::vector<ForcedSequence> forced{{seq, 0}};
    const std::vector<double> all = rounded.teacher_forced(forced).front();
    std::vector<double> forced_rows;  // the rows step() gave: after positions 4, 8, 9, 10, 11
    for (const std::int64_t p : {4, 8, 9, 10, 11})
      forced_rows.insert(forced_rows.end(), all.begin() + p * m.vocab, all.begin() + (p + 1) * m.vocab);
    EXPECT_LT(worst_rel_error(forced_rows, by_steps, m.vocab), 1e-9) << arch;
    const double cost = worst_rel_error(exact_steps, by_steps, m.vocab);
    EXPECT_GT(cost, kLogitRelTolerance) << arch;
    EXPECT_LT(cost, kLogitRelToleranceBf16Activations / 3) << arch;
  }
}

// Verification holds the candidate to the tolerance it is given: an honest bf16-activation engine (the reference's
// bf16_operands, in float) fails the fp32 contract and passes its own.
TEST(ActivationContract, VerificationHoldsAnEngineToItsDeclaredContract) {
  const jobs::ModelSpec model = small_model("llama");
  const Weights weights = random_weights(model);
  const VerificationNeeds needs = verification_needs();
  const auto run = [&](double tolerance) {
    ReferenceEngine engine(model, weights, static_cast<int>(needs.slots), static_cast<int>(needs.max_context),
                           ReferenceArithmetic::bf16_operands);
    const LogitsFn candidate = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens) {
      const std::vector<double> logits = engine.step(std::vector<SeqDesc>(seqs.begin(), seqs.end()),
                                                     std::vector<std::int32_t>(tokens.begin(), tokens.end()));
      return std::vector<float>(logits.begin(), logits.end());
    };
    return verify_engine(model, weights, 7, {}, candidate, tolerance);
  };
  const VerifyResult strict = run(kLogitRelTolerance);
  EXPECT_EQ(strict.status, jobs::Status::wrong_result);
  EXPECT_NE(strict.evidence.find("verification trace"), std::string::npos) << strict.evidence;
  const VerifyResult own = run(kLogitRelToleranceBf16Activations);
  EXPECT_EQ(own.status, jobs::Status::ok) << own.evidence;
  EXPECT_GT(own.max_rel_error, kLogitRelTolerance);
}

}  // namespace
}  // namespace kforge::kernels::engine
