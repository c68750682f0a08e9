// The verification trace's bookkeeping without compiling anything: the reference itself (rounded to float) passes,
// a candidate wrong only for the request that reuses slot 1 is named by request, step and position, and the
// campaign's validation cases add their seeds (docs/engines.md, "Verification").
#include <gtest/gtest.h>

#include "engine_test_support.hpp"
#include "kforge/engine/engine_verification.hpp"

namespace kforge::kernels::engine {
namespace {

// A float copy of the reference engine as the candidate; `corrupt` may change a step's logits.
struct FloatReference {
  ReferenceEngine engine;
  std::function<void(std::span<const SeqDesc>, std::vector<float>&)> corrupt;
  LogitsFn fn() {
    return [this](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens) {
      const std::vector<double> exact = engine.step(std::vector<SeqDesc>(seqs.begin(), seqs.end()),
                                                    std::vector<std::int32_t>(tokens.begin(), tokens.end()));
      std::vector<float> out(exact.begin(), exact.end());
      if (corrupt) corrupt(seqs, out);
      return out;
    };
  }
};

TEST(EngineVerification, TheReferenceInFloatPassesAndAReusedSlotsErrorIsNamed) {
  const jobs::ModelSpec model = testing::tiny_model("llama");
  const Weights weights = random_weights(model);
  const VerificationNeeds needs = verification_needs();
  EXPECT_GE(needs.max_context, 73);  // past every kv_block size
  FloatReference honest{
      ReferenceEngine(model, weights, static_cast<int>(needs.slots), static_cast<int>(needs.max_context)), {}};
  const VerifyResult ok = verify_engine_trace(model, weights, 99, honest.fn());
  EXPECT_EQ(ok.status, jobs::Status::ok) << ok.evidence;
  EXPECT_LT(ok.max_rel_error, 1e-6);

  // Wrong only for the second request of slot 1 (its first chunk starts at position 0 after R1 used the slot).
  int starts_in_slot1 = 0;
  FloatReference wrong{
      ReferenceEngine(model, weights, static_cast<int>(needs.slots), static_cast<int>(needs.max_context)),
      [&](std::span<const SeqDesc> seqs, std::vector<float>& logits) {
        for (std::size_t s = 0; s < seqs.size(); ++s) {
          if (seqs[s].slot != 1 || seqs[s].start_position != 0) continue;
          if (++starts_in_slot1 == 2) logits[s * static_cast<std::size_t>(model.vocab)] += 100.0f;
        }
      }};
  const VerifyResult caught = verify_engine_trace(model, weights, 99, wrong.fn());
  EXPECT_EQ(caught.status, jobs::Status::wrong_result);
  EXPECT_EQ(caught.failed_case.rfind("engine_trace=1 request=3 step=", 0), 0u) << caught.failed_case;
  EXPECT_NE(caught.failed_case.find(" position=3 seed=99"), std::string::npos) << caught.failed_case;  // chunk 0..3
  EXPECT_NE(caught.evidence.find("R3 (slot 1)"), std::string::npos) << caught.evidence;
}

TEST(EngineVerification, ValidationCasesOfTheEngineAddTheirSeeds) {
  const auto seeds =
      verification_seeds(5, {"M=7 N=5 K=3 seed=1", "engine_trace=1 request=3 step=9 position=3 seed=77", "not a case"});
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_EQ(seeds[1], 77u);
  EXPECT_NE(seeds[0], 5u);  // the evaluation's seed, stepped: a stream of its own
}

}  // namespace
}  // namespace kforge::kernels::engine
