// RoPE's inverse frequencies (kernels/engine/include/kforge/engine/rope.hpp): rope_theta alone, and Llama 3's
// scaling against transformers' own numbers; and every engine rotates with them (a scaled model is served by a
// rendered host engine within the tolerance of the reference, and the scaling changes the logits well beyond it).
#include "kforge/engine/rope.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/engine_template.hpp"
#include "engine_model_support.hpp"
#include "engine_template_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"

namespace kforge::kernels::engine {
namespace {

using model_testing::AbiEngine;
using model_testing::small_model;
using template_testing::genome;
using template_testing::run_script;
using template_testing::work_dir;

jobs::ModelSpec llama32_1b_rope() {
  jobs::ModelSpec m;
  m.head_dim = 64;
  m.rope_theta = 500000.0;
  m.rope_scaling_factor = 32.0;
  m.rope_low_freq_factor = 1.0;
  m.rope_high_freq_factor = 4.0;
  m.rope_original_context = 8192;
  return m;
}

TEST(Rope, WithoutScalingTheFrequenciesAreThetaToTheMinusTwoIOverD) {
  jobs::ModelSpec m = llama32_1b_rope();
  m.rope_scaling_factor = 0.0;
  const auto inv = rope_inverse_frequencies(m);
  ASSERT_EQ(inv.size(), 32u);
  for (std::size_t i = 0; i < inv.size(); ++i)
    EXPECT_DOUBLE_EQ(inv[i], std::pow(500000.0, -2.0 * static_cast<double>(i) / 64.0)) << i;
}

// transformers 5.19's ROPE_INIT_FUNCTIONS["llama3"] on Llama 3.2 1B's config (float32, so to 1e-6): the high
// frequencies kept (0, 14), the interpolated band (15, 16) and the stretched low ones (17, 31).
TEST(Rope, Llama3ScalingGivesTransformersFrequencies) {
  const auto inv = rope_inverse_frequencies(llama32_1b_rope());
  ASSERT_EQ(inv.size(), 32u);
  const std::pair<std::size_t, double> want[] = {{0, 1.0},
                                                 {14, 0.0032114461064338684},
                                                 {15, 0.0012905480107292533},
                                                 {16, 0.000429556705057621},
                                                 {17, 9.708286233944818e-05},
                                                 {31, 9.418306490260875e-08}};
  for (const auto& [i, value] : want) EXPECT_NEAR(inv[i] / value, 1.0, 1e-6) << "pair " << i;
}

TEST(Rope, RefusesAnOddHeadOrInconsistentScaling) {
  jobs::ModelSpec m = llama32_1b_rope();
  m.head_dim = 63;
  EXPECT_THROW(rope_inverse_frequencies(m), std::invalid_argument);
  m = llama32_1b_rope();
  m.rope_high_freq_factor = 1.0;  // not above low_freq_factor: the interpolation would divide by zero
  EXPECT_THROW(rope_inverse_frequencies(m), std::invalid_argument);
}

// A small model whose original context is short enough that all three bands of the scaling hold pairs.
jobs::ModelSpec scaled_small_model() {
  auto m = small_model("llama", false);
  m.head_dim = 32;
  m.rope_scaling_factor = 8.0;
  m.rope_low_freq_factor = 1.0;
  m.rope_high_freq_factor = 4.0;
  m.rope_original_context = 64;
  return m;
}

TEST(Rope, TheHostEngineAndTheReferenceRotateWithTheScaledFrequencies) {
  const jobs::ModelSpec m = scaled_small_model();
  const Weights w = random_weights(m);
  // The scaling is visible: the same weights without it give logits far outside the tolerance.
  jobs::ModelSpec plain = m;
  plain.rope_scaling_factor = 0.0;
  const std::vector<std::int32_t> prompt = {5, 17, 200, 3, 99, 41, 7, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const auto scaled = ReferenceEngine(m, w, 1, 32).step({{0, 0, 20}}, prompt);
  const auto unscaled = ReferenceEngine(plain, w, 1, 32).step({{0, 0, 20}}, prompt);
  double top = 1.0, worst = 0.0;
  for (double x : scaled) top = std::max(top, std::abs(x));
  for (std::size_t i = 0; i < scaled.size(); ++i) worst = std::max(worst, std::abs(scaled[i] - unscaled[i]) / top);
  EXPECT_GT(worst, 100 * kLogitRelTolerance);
  // A rendered engine (it reads the frequencies kInit hands it) agrees with the reference on the scaled model.
  AbiEngine engine = AbiEngine::compile(render_engine_source(engine_params_from_genome(genome(1, 1, 1, 1, 1, 1, 0, 2))),
                                        work_dir("rope-scaled"));
  EXPECT_LT(run_script(engine, m, w, w, true, "llama3 rope scaling"), kLogitRelTolerance / 10);
}

}  // namespace
}  // namespace kforge::kernels::engine
