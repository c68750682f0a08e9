// The engine template (kernels/host/engine/engine_template): genome validation, and rendered engines of genomes
// covering every option value matching the double-precision reference within the documented tolerance, for
// llama (tied, untied, GQA) and kimi-linear (attention_every 2 and 4), on chunked prefills and mixed batches.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>

#include "engine/engine_template_text.hpp"
#include "engine_model_support.hpp"
#include "engine_template_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"

namespace kforge::kernels::engine {
namespace {

using model_testing::AbiEngine;
using model_testing::small_model;
using template_testing::Case;
using template_testing::genome;
using template_testing::run_script;
using template_testing::work_dir;

TEST(EngineTemplate, GenomeValidationNamesEveryMissingAndUnknownParameter) {
  jobs::Genome g = genome(0, 0, 0, 0, 0, 0, 0, 1);
  EXPECT_NO_THROW(engine_params_from_genome(g));
  g.params.erase("fold_norm");
  g.params.erase("MC");
  g.params["warp"] = std::int64_t{1};
  try {
    engine_params_from_genome(g);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const char* word : {"missing parameter(s): MC, fold_norm", "unknown parameter(s): warp"})
      EXPECT_NE(what.find(word), std::string::npos) << what;
  }
  for (const auto& [name, bad] :
       std::vector<std::pair<std::string, jobs::ParamValue>>{{"kv_block", std::int64_t{8}},
                                                             {"threads", std::int64_t{3}},
                                                             {"max_batch", std::int64_t{3}},
                                                             {"prefill_chunk", std::int64_t{8}},
                                                             {"schedule", std::string("fifo")},
                                                             {"NR", std::int64_t{12}},
                                                             {"prepack", std::string("yes")}}) {
    jobs::Genome b = genome(0, 0, 0, 0, 0, 0, 0, 1);
    b.params[name] = bad;
    try {
      engine_params_from_genome(b);
      ADD_FAILURE() << name;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  const auto p = engine_params_from_genome(genome(1, 1, 0, 1, 0, 1, 32, 2));
  EXPECT_TRUE(p.fuse_qkv && p.fold_norm && p.prepack && !p.fuse_gate_up && !p.residual_epilogue);
  EXPECT_EQ(p.kv_block, 32);
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(p.gemm.LOOP_ORDER, "pji");
}

TEST(EngineTemplate, OptionsChangeTheRenderedSource) {
  const auto base = render_engine_source(engine_params_from_genome(genome(0, 0, 0, 0, 0, 0, 0, 1)));
  EXPECT_NE(base.find("extern \"C\" void kforge_engine("), std::string::npos);
  EXPECT_EQ(base.find("extern \"C\" void kforge_gemm("), std::string::npos);  // the gemm kernel is internal
  EXPECT_EQ(base.find("thread_local"), std::string::npos);
  const auto two = render_engine_source(engine_params_from_genome(genome(0, 1, 1, 1, 1, 1, 64, 2)));
  for (const char* line : {"FUSE_QKV = true", "FUSE_GATE_UP = true", "FOLD_NORM = true", "RESIDUAL_EPILOGUE = true",
                           "PREPACK = true", "KV_BLOCK = 64", "THREADS_WANTED = 2", "thread_local float packed_a"})
    EXPECT_NE(two.find(line), std::string::npos) << line;
  // The optional prefetch: none when left out; only the distances the schema lists.
  EXPECT_NE(base.find("PREFETCH = 0;"), std::string::npos);
  jobs::Genome ahead = genome(0, 0, 0, 0, 0, 0, 0, 1);
  ahead.params["prefetch"] = std::int64_t{4096};
  EXPECT_NE(render_engine_source(engine_params_from_genome(ahead)).find("PREFETCH = 4096;"), std::string::npos);
  ahead.params["prefetch"] = std::int64_t{100};
  EXPECT_THROW(engine_params_from_genome(ahead), std::invalid_argument);
}

TEST(EngineTemplate, RenderedEnginesMatchTheReference) {
  auto gqa_untied = small_model("llama", false);
  auto mha_tied = small_model("llama", true);
  mha_tied.kv_heads = mha_tied.heads;
  auto kimi2 = small_model("kimi-linear", true, 2);
  auto kimi4 = small_model("kimi-linear", false, 4);
  kimi4.layers = 4;
  kimi4.hidden = 96;
  // Head dimensions with an unrolled attention kernel (32, 64; 16 above takes the runtime-length one), and an MLP
  // width that leaves a partial panel of 16 and of 32 columns.
  auto gqa32 = small_model("llama", false);
  gqa32.head_dim = 32;
  gqa32.mlp_hidden = 100;
  auto kimi64 = small_model("kimi-linear", true, 2);
  kimi64.heads = 2;
  kimi64.kv_heads = 1;
  kimi64.head_dim = 64;
  // Qwen2: llama with q/k/v biases, fused and unfused projections, folded norms or not.
  auto qwen = gqa_untied;
  qwen.qkv_bias = true;
  auto qwen_tied = mha_tied;
  qwen_tied.qkv_bias = true;
  // Qwen3: each head of q and k RMS-normalised (with its own gammas) before RoPE.
  auto qwen3 = gqa32;
  qwen3.qk_norm = true;
  // Every option value at least once; every genome on a llama and a kimi-linear model.
  const std::vector<Case> cases = {
      {genome(0, 0, 0, 0, 0, 0, 0, 1), {gqa_untied, kimi2, qwen}},
      {genome(1, 1, 1, 1, 1, 1, 16, 2), {mha_tied, kimi4, qwen_tied}},
      {genome(2, 1, 0, 1, 0, 0, 32, 1), {gqa_untied, kimi4, qwen_tied}},
      {genome(0, 0, 1, 0, 1, 1, 64, 4), {mha_tied, kimi2, qwen}},  // 4 threads: more than this machine's cores
      {genome(3, 1, 1, 1, 1, 1, 0, 2), {gqa32, kimi64, qwen3}},
      {genome(4, 0, 0, 1, 0, 1, 16, 0), {gqa32, kimi4, qwen3}},  // 0: one thread per CPU the process may use
  };
  std::vector<std::future<AbiEngine>> compiled;  // the compiles run side by side: they are most of the time
  for (std::size_t c = 0; c < cases.size(); ++c)
    compiled.push_back(std::async(std::launch::async, [&cases, c] {
      return AbiEngine::compile(render_engine_source(engine_params_from_genome(cases[c].genome)),
                                work_dir("case" + std::to_string(c)));
    }));
  double worst = 0.0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    AbiEngine engine = compiled[c].get();
    for (const auto& m : cases[c].models) {
      const Weights w = random_weights(m);
      worst = std::max(worst, run_script(engine, m, w, w, true, cases[c].genome.to_text() + " " + m.architecture));
    }
  }
  RecordProperty("max_relative_error", std::to_string(worst));
  EXPECT_LT(worst, kLogitRelTolerance / 10) << "honest fp32 engines should sit far below the tolerance";
}

TEST(EngineTemplate, Bf16WeightsFailTheTolerance) {
  AbiEngine engine = AbiEngine::compile(render_engine_source(engine_params_from_genome(genome(0, 1, 1, 0, 0, 1, 0, 1))),
                                        work_dir("bf16"));
  for (const auto& m : {small_model("llama", false), small_model("kimi-linear")}) {
    const Weights w = random_weights(m);
    Weights rounded = w;
    for (float& x : rounded.data) x = round_to_bf16(x);  // every value, vectors too (weight_precision.hpp)
    run_script(engine, m, rounded, w, false, "bf16 " + m.architecture);
  }
}

// The engines' vector exp (softmax, SiLU), cut from the template's own text and compiled alone: every 256th float
// of [-87.3, 88) within 2 ulp of the double exp, and the edges (underflow, overflow, NaN, infinities) kept.
TEST(EngineTemplate, VectorExpIsWithinTwoUlpAndKeepsTheSpecialValues) {
  const std::string text = text::engine_attention();
  const auto begin = text.find("constexpr int AV = 8;"), end = text.find("// v[i] = e^(v[i] - shift)");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const auto dir = work_dir("vexp");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "vexp.cpp") << "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n"
                                  << text.substr(begin, end - begin) << R"(
int main() {
  double worst = 0.0;
  long i = 0;
  for (float x = -87.3f; x < 88.0f; x = std::nextafter(x, 100.0f)) {
    if (i++ % 256 != 0) continue;
    float got;
    const av e = vexp(splat(x));
    std::memcpy(&got, &e, sizeof got);
    const double want = std::exp(static_cast<double>(x));
    const double ulp = std::nextafter(static_cast<float>(want), INFINITY) - static_cast<float>(want);
    worst = std::fmax(worst, std::fabs(got - want) / ulp);
  }
  const float edges[AV] = {-100.0f, -87.4f, 88.5f, NAN, INFINITY, -INFINITY, 0.0f, 1.0f};
  float out[AV];
  const av e = vexp(aload(edges));
  std::memcpy(out, &e, sizeof out);
  std::printf("%.4f", worst);
  for (float f : out) std::printf(" %.9g", f);
  std::printf("\n");
}
)";
  ASSERT_EQ(std::system(("c++ -std=c++17 -O2 -o " + (dir / "vexp").string() + " " + (dir / "vexp.cpp").string() +
                         " > " + (dir / "compile.log").string() + " 2>&1")
                            .c_str()),
            0)
      << "see " << (dir / "compile.log");
  FILE* run = ::popen((dir / "vexp").c_str(), "r");
  ASSERT_NE(run, nullptr);
  double worst = -1.0;
  float v[8] = {};
  const int got =
      std::fscanf(run, "%lf %f %f %f %f %f %f %f %f", &worst, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  ::pclose(run);
  ASSERT_EQ(got, 9);
  RecordProperty("vexp_worst_ulp", std::to_string(worst));
  EXPECT_LE(worst, 2.0);
  EXPECT_EQ(v[0], 0.0f);  // e^-100: below the normal floats
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_TRUE(std::isinf(v[2]) && v[2] > 0);
  EXPECT_TRUE(std::isnan(v[3]));
  EXPECT_TRUE(std::isinf(v[4]) && v[4] > 0);
  EXPECT_EQ(v[5], 0.0f);
  EXPECT_EQ(v[6], 1.0f);
  EXPECT_NEAR(v[7], 2.718281828f, 1e-6f);
}

TEST(EngineTemplate, ReferenceEntryPointServesThroughTheAbi) {
  AbiEngine engine(&reference_engine_entry);
  const auto m = small_model("kimi-linear");
  const Weights w = random_weights(m);
  EXPECT_LT(run_script(engine, m, w, w, true, "reference entry"), 1e-6);
}

}  // namespace
}  // namespace kforge::kernels::engine
