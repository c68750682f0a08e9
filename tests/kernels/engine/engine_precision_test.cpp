// Weight precisions (kernels/engine/weight_precision, docs/engines.md "Precisions"): the rounding the contract
// defines, the physical floor at each precision's size, and rendered bf16 and int8 engines held to the fp32
// tolerance against the double reference on the same rounded weights, but not on the unrounded ones (the rounding
// is real), through the ABI and through the host engine backend.
#include <gtest/gtest.h>

#include <cmath>
#include <future>
#include <limits>

#include "engine_model_support.hpp"
#include "engine_template_support.hpp"
#include "engine_test_support.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::engine {
namespace {

using model_testing::AbiEngine;
using model_testing::small_model;
using template_testing::genome;
using template_testing::run_script;
using template_testing::work_dir;

TEST(WeightPrecision, Bf16RoundsToNearestTiesToEven) {
  const float ulp = std::ldexp(1.0f, -7);                           // bf16 keeps 7 bits of mantissa
  EXPECT_EQ(round_to_bf16(1.0f + ulp / 2), 1.0f);                   // a tie: to the even mantissa (0)
  EXPECT_EQ(round_to_bf16(1.0f + 3 * ulp / 2), 1.0f + 2 * ulp);     // a tie: to the even mantissa (2)
  EXPECT_EQ(round_to_bf16(1.0f + ulp / 2 + ulp / 64), 1.0f + ulp);  // above the tie: up
  EXPECT_EQ(round_to_bf16(-3.0f), -3.0f);                           // representable: unchanged
  EXPECT_TRUE(std::isnan(round_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(round_to_bf16(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
}

TEST(WeightPrecision, Int8RowsKeepTheirLargestValueAndStayWithinHalfAScale) {
  std::vector<float> row = {0.5f, -2.54f, 0.0101f, 1.0f, -0.0099f, 2.0f};
  const std::vector<float> before = row;
  const float scale = int8_row_scale(row);
  EXPECT_FLOAT_EQ(scale, 2.54f / 127.0f);
  round_row_to_int8(row);
  for (std::size_t i = 0; i < row.size(); ++i) {
    EXPECT_LE(std::abs(row[i] - before[i]), scale / 2 * (1 + 1e-6f)) << i;
    const float q = row[i] / scale;
    EXPECT_NEAR(q, std::nearbyint(q), 1e-4) << i;  // every value is a multiple of the scale
  }
  EXPECT_NEAR(row[1], -2.54f, 2.54f * 1e-6f);  // the largest keeps its value (q = -127)
  std::vector<float> zeros(4, 0.0f);
  round_row_to_int8(zeros);
  EXPECT_EQ(zeros, std::vector<float>(4, 0.0f));  // scale 0: no division by zero
}

// E4M3 as OCP defines it: 3 mantissa bits, ties to even, 448 the largest, subnormals of 2^-9 below 2^-6; every value
// round_to_e4m3 returns has its bits and back; a row keeps its largest value and every element lies within half a
// quantum of its binade (relative 2^-4 for normals).
TEST(WeightPrecision, Fp8E4m3RoundsAsOcpDefinesAndRowsKeepTheirLargestValue) {
  EXPECT_EQ(round_to_e4m3(1.0f + 1.0f / 16), 1.0f);            // a tie between 1 and 1.125: to the even mantissa
  EXPECT_EQ(round_to_e4m3(1.0f + 3.0f / 16), 1.25f);           // a tie between 1.125 and 1.25: to even (1.25)
  EXPECT_EQ(round_to_e4m3(1.0f + 1.0f / 16 + 1e-3f), 1.125f);  // above the tie: up
  EXPECT_EQ(round_to_e4m3(500.0f), 448.0f);                    // clamped to the largest
  EXPECT_EQ(round_to_e4m3(-3.0f * std::ldexp(1.0f, -9)), -3.0f * std::ldexp(1.0f, -9));  // a subnormal
  EXPECT_EQ(round_to_e4m3(std::ldexp(1.0f, -11)), 0.0f);  // below half the smallest subnormal
  EXPECT_EQ(e4m3_bits(448.0f), 0x7e);
  EXPECT_EQ(e4m3_bits(-1.0f), 0xb8);
  EXPECT_EQ(e4m3_bits(std::ldexp(1.0f, -9)), 0x01);
  for (int b = 0; b < 256; ++b) {
    if ((b & 0x7f) == 0x7f) continue;  // NaN
    EXPECT_EQ(e4m3_bits(e4m3_value(static_cast<std::uint8_t>(b))), b) << b;
    EXPECT_EQ(round_to_e4m3(e4m3_value(static_cast<std::uint8_t>(b))), e4m3_value(static_cast<std::uint8_t>(b))) << b;
  }
  std::vector<float> row = {0.5f, -2.54f, 0.0101f, 1.0f, -0.0099f, 2.0f};
  const std::vector<float> before = row;
  round_row_to_fp8(row);
  EXPECT_NEAR(row[1], -2.54f, 2.54f * 1e-6f);
  for (std::size_t i = 0; i < row.size(); ++i) EXPECT_LE(std::abs(row[i] - before[i]), std::abs(before[i]) / 16) << i;
}

TEST(WeightPrecision, RoundingTouchesTheMatricesOnlyAndOnlyOnce) {
  const auto m = small_model("llama", false);
  const Weights original = random_weights(m);
  Weights w = original;
  round_weights(w, WeightPrecision::int8);
  EXPECT_EQ(w.precision, WeightPrecision::int8);
  for (std::size_t t = 0; t < w.tensors.size(); ++t) {
    const auto n = static_cast<std::size_t>(w.tensors[t].elements());
    const bool same = std::equal(w.data.begin() + w.offsets[t], w.data.begin() + w.offsets[t] + n,
                                 original.data.begin() + original.offsets[t]);
    EXPECT_EQ(same, w.tensors[t].shape.size() == 1) << w.tensors[t].name;  // norms untouched, every matrix rounded
  }
  EXPECT_NO_THROW(round_weights(w, WeightPrecision::int8));  // already so: nothing to do
  EXPECT_THROW(round_weights(w, WeightPrecision::bf16), std::logic_error);
  EXPECT_THROW(parse_weight_precision("fp16"), std::invalid_argument);
}

TEST(WeightPrecision, ThePhysicalFloorCountsEachPrecisionsBytes) {
  for (bool tied : {true, false}) {
    const auto m = small_model("llama", tied);
    double matrices = 0.0, vectors = 0.0;
    for (const auto& t : tensor_list(m)) (t.shape.size() == 2 ? matrices : vectors) += double(t.elements());
    if (!tied) matrices -= double(m.vocab * m.hidden);  // a step reads its tokens' rows of an untied embedding
    EXPECT_DOUBLE_EQ(weight_bytes_per_step(m, WeightPrecision::fp32), 4 * (matrices + vectors));
    EXPECT_DOUBLE_EQ(weight_bytes_per_step(m, WeightPrecision::bf16), 2 * matrices + 4 * vectors);
    EXPECT_DOUBLE_EQ(weight_bytes_per_step(m, WeightPrecision::int8), matrices + 4 * vectors);
  }
}

jobs::Genome with_weights(jobs::Genome g, const std::string& precision) {
  g.params["weights"] = precision;
  return g;
}

jobs::Genome with(jobs::Genome g, const std::string& name, std::int64_t value) {
  g.params[name] = value;
  return g;
}

// Every path a stored weight takes: SIMD tiles of 8 and 16 floats, plain floats (VEC 1, whose genome has prepack 0:
// quantized weights are packed anyway), fused and unfused projections, fold_norm asked for (it has no effect),
// prefetching ahead of the panels (past their end too: the model's widths are far below 4096 bytes), on llama (tied,
// untied), Qwen2 and kimi-linear.
TEST(EnginePrecision, Bf16AndInt8EnginesMatchTheReferenceOnTheirRoundedWeightsOnly) {
  auto qwen = small_model("llama", false);
  qwen.qkv_bias = true;
  const std::vector<jobs::ModelSpec> models = {small_model("llama", true), qwen, small_model("kimi-linear", false)};
  std::vector<jobs::Genome> genomes;
  for (const char* precision : {"bf16", "int8"}) {
    genomes.push_back(with_weights(genome(0, 1, 1, 1, 0, 1, 16, 1), precision));
    genomes.push_back(with_weights(genome(4, 0, 0, 0, 1, 1, 0, 2), precision));
    genomes.push_back(with_weights(genome(1, 0, 1, 1, 1, 0, 32, 1), precision));
  }
  genomes.push_back(with(with_weights(genome(4, 1, 1, 0, 1, 1, 16, 2), "int8"), "prefetch", 4096));
  genomes.push_back(with(with_weights(genome(0, 0, 1, 0, 0, 1, 0, 1), "bf16"), "prefetch", 256));
  std::vector<std::future<AbiEngine>> compiled;
  for (std::size_t g = 0; g < genomes.size(); ++g) {
    const EngineTemplateParams p = engine_params_from_genome(genomes[g]);
    EXPECT_FALSE(p.fold_norm) << "folding gamma into bf16 or int8 weights would round the product";
    compiled.push_back(std::async(std::launch::async, [p, g] {
      return AbiEngine::compile(render_engine_source(p), work_dir("precision" + std::to_string(g)));
    }));
  }
  double worst = 0.0;
  for (std::size_t g = 0; g < genomes.size(); ++g) {
    AbiEngine engine = compiled[g].get();
    const WeightPrecision precision = weights_from_genome(genomes[g]);
    for (const auto& m : models) {
      const Weights original = random_weights(m);
      Weights rounded = original;
      round_weights(rounded, precision);
      const std::string what = genomes[g].to_text() + " " + m.architecture + (m.qkv_bias ? " qkv_bias" : "");
      worst = std::max(worst, run_script(engine, m, rounded, rounded, true, what));
      run_script(engine, m, rounded, original, false, what + " against the unrounded model");
    }
  }
  RecordProperty("max_relative_error", std::to_string(worst));
  EXPECT_LT(worst, kLogitRelTolerance / 10) << "the arithmetic is fp32: far below the tolerance";
}

// In the confined candidate process, with one thread per CPU it may use (threads=0).
TEST(EnginePrecision, TheBackendServesTheDeclaredPrecisionOnEveryCoreAndRefusesAnUnknownOne) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "engine");
  jobs::EvalSettings s = testing::tiny_engine_settings("llama");
  const EvalContext ctx = testing::context(s, scratch.sub("c"));
  jobs::Genome g = with_weights(testing::engine_genome(), "int8");
  g.params["threads"] = std::int64_t{0};
  const jobs::Candidate c = testing::engine_candidate(g);
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  backend->load(compiled);
  const VerifyResult v = backend->verify(ctx);
  ASSERT_EQ(v.status, jobs::Status::ok) << v.evidence << " " << v.failed_case;
  EXPECT_LT(v.max_rel_error, kLogitRelTolerance);
  const TimeResult t = backend->time(ctx);
  EXPECT_EQ(t.status, jobs::Status::ok) << t.evidence;

  const jobs::Candidate fp16 = testing::engine_candidate(with_weights(testing::engine_genome(), "fp16"));
  try {
    backend->render(fp16);
    ADD_FAILURE() << "weights=fp16 rendered";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("weights \"fp16\" must be fp32, bf16, int8 or fp8"), std::string::npos)
        << e.what();
  }
  const jobs::Candidate fp8 = testing::engine_candidate(with_weights(testing::engine_genome(), "fp8"));
  try {
    backend->render(fp8);
    ADD_FAILURE() << "weights=fp8 rendered by the host engine";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fp8 are served by the cuda engine only"), std::string::npos) << e.what();
  }
}

// One backend object evaluates candidates one after another (a rank's cascade): each is served, and checked, on the
// model rounded to its own precision. Were the rounded weights of one kept for the next, the bf16 engine would get
// int8-rounded values it cannot store exactly and the fp32 one a model other than the reference's.
TEST(EnginePrecision, OneBackendJudgesEachCandidateOnItsOwnPrecision) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "engine");
  jobs::EvalSettings s = testing::tiny_engine_settings("llama");
  int n = 0;
  for (const char* precision : {"int8", "bf16", "fp32", "int8"}) {
    SCOPED_TRACE(precision);
    const EvalContext ctx = testing::context(s, scratch.sub("candidate" + std::to_string(++n)));
    const jobs::Candidate c = testing::engine_candidate(with_weights(testing::engine_genome(), precision));
    const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    backend->load(compiled);
    const VerifyResult v = backend->verify(ctx);
    ASSERT_EQ(v.status, jobs::Status::ok) << v.evidence << " " << v.failed_case;
    EXPECT_LT(v.max_rel_error, kLogitRelTolerance / 10);
  }
}

}  // namespace
}  // namespace kforge::kernels::engine
