// The engine's KDA prefill through the kda family's chunked kernel (KDA_CHUNK > 0; kernels/host/engine/
// engine_kda_text.cpp): engines of several KDA_* genomes reproduce the double reference on long prefills that span
// several chunks, under slow decay (whole chunks), fast decay (chunks cut where the decay passes e^-60) and decay
// that empties the state within a token; the same kernel without the cut does not survive fast decay.
#include <gtest/gtest.h>

#include <cmath>
#include <future>

#include "engine/engine_template_text.hpp"
#include "engine_model_support.hpp"
#include "engine_test_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"

namespace kforge::kernels::engine {
namespace {

using model_testing::AbiEngine;
using model_testing::ScriptStep;

jobs::Genome kda_genome(int chunk, int dv_tile, int unroll, int vec) {
  jobs::Genome g = testing::engine_genome();
  g.params["KDA_CHUNK"] = std::int64_t{chunk};
  g.params["KDA_DV_TILE"] = std::int64_t{dv_tile};
  g.params["KDA_UNROLL"] = std::int64_t{unroll};
  g.params["KDA_VEC"] = std::int64_t{vec};
  return g;
}

// Three KDA layers and one attention layer, head_dim 32.
jobs::ModelSpec kimi_model() {
  jobs::ModelSpec m = model_testing::small_model("kimi-linear", true, 4);
  m.layers = 4;
  m.heads = 2;
  m.kv_heads = 2;
  m.head_dim = 32;
  return m;
}

// The model's weights with every KDA layer's decay projection (f_proj) scaled: 0.02 makes each token's decay about
// e^-0.7 (a 64-token chunk stays above e^-60), 1 is the model's own, 40 makes softplus(f) tens per token.
Weights with_decay_scale(const jobs::ModelSpec& m, double scale) {
  Weights w = random_weights(m);
  for (std::size_t i = 0; i < w.tensors.size(); ++i) {
    const std::string& name = w.tensors[i].name;
    if (name.size() < 13 || name.compare(name.size() - 13, 13, "f_proj.weight") != 0) continue;
    const std::size_t end = i + 1 < w.tensors.size() ? w.offsets[i + 1] : w.data.size();
    for (std::size_t e = w.offsets[i]; e < end; ++e) w.data[e] = static_cast<float>(w.data[e] * scale);
  }
  return w;
}

// Long prefills (40 and 23 tokens in one step, then 17 more for slot 0), decodes, a restarted slot.
std::vector<ScriptStep> long_prefill_script(std::int64_t vocab) {
  std::int32_t next = 5;
  std::vector<ScriptStep> script;
  auto add = [&](std::vector<SeqDesc> seqs) {
    ScriptStep s{seqs, {}};
    for (const auto& d : seqs)
      for (std::int64_t i = 0; i < d.token_count; ++i)
        s.tokens.push_back(static_cast<std::int32_t>(next = static_cast<std::int32_t>((next * 41 + 7) % vocab)));
    script.push_back(s);
  };
  add({{0, 0, 40}, {1, 0, 23}});
  add({{0, 40, 17}, {1, 23, 1}});
  for (int i = 0; i < 3; ++i) add({{0, 57 + i, 1}, {1, 24 + i, 1}});
  add({{1, 0, 30}, {0, 60, 1}});
  return script;
}

// The largest relative logit error over the script; every step's greedy token is checked when `expect_ok`.
double worst_error(AbiEngine& engine, const jobs::ModelSpec& m, const Weights& w, bool expect_ok,
                   const std::string& what) {
  const int slots = 2, context = 64;
  ReferenceEngine reference(m, w, slots, context);
  engine.init(m, w, slots, context);
  double worst = 0.0;
  for (const auto& step : long_prefill_script(m.vocab)) {
    const auto want = reference.step(step.seqs, step.tokens);
    const auto got = engine.step(step.seqs, step.tokens);
    const LogitCheck check = compare_logits(want, got, m.vocab);
    worst = std::max(worst, std::isnan(check.max_rel) ? INFINITY : check.max_rel);
    if (!expect_ok) continue;
    EXPECT_TRUE(check.ok) << what << ": " << check.evidence;
    for (std::size_t s = 0; s < step.seqs.size(); ++s)
      EXPECT_TRUE(greedy_agrees({want.data() + s * m.vocab, static_cast<std::size_t>(m.vocab)},
                                {got.data() + s * m.vocab, static_cast<std::size_t>(m.vocab)}))
          << what;
  }
  return worst;
}

std::filesystem::path work_dir(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("kforge-engine-kda-" + std::to_string(::getpid())) / name;
}

TEST(EngineKdaPrefill, ChunkedEnginesMatchTheReferenceAtEveryDecay) {
  const std::vector<jobs::Genome> genomes = {kda_genome(16, 32, 1, 1), kda_genome(32, 16, 2, 8),
                                             kda_genome(64, 7, 4, 4), kda_genome(0, 64, 2, 8)};
  std::vector<std::future<AbiEngine>> compiled;  // side by side: the compiles are most of the time
  for (std::size_t i = 0; i < genomes.size(); ++i)
    compiled.push_back(std::async(std::launch::async, [&genomes, i] {
      return AbiEngine::compile(render_engine_source(engine_params_from_genome(genomes[i])),
                                work_dir("g" + std::to_string(i)));
    }));
  const jobs::ModelSpec m = kimi_model();
  double worst = 0.0;
  for (std::size_t i = 0; i < genomes.size(); ++i) {
    AbiEngine engine = compiled[i].get();
    for (const double scale : {0.02, 1.0, 40.0}) {
      const std::string what = genomes[i].to_text() + " decay scale " + std::to_string(scale);
      worst = std::max(worst, worst_error(engine, m, with_decay_scale(m, scale), true, what));
    }
  }
  RecordProperty("max_relative_error", std::to_string(worst));
  EXPECT_LT(worst, kLogitRelTolerance / 10) << "honest fp32 engines should sit far below the tolerance";
}

TEST(EngineKdaPrefill, TheKernelWithoutTheDecayCutFailsFastDecay) {
  const std::string source = render_engine_source(engine_params_from_genome(kda_genome(32, 32, 2, 8)));
  const std::string cut = "kKdaChunkLogDecayFloor = -60.0f";
  const auto at = source.find(cut);
  ASSERT_NE(at, std::string::npos);
  std::string uncut = source;
  uncut.replace(at, cut.size(), "kKdaChunkLogDecayFloor = -1e30f");
  AbiEngine engine = AbiEngine::compile(uncut, work_dir("uncut"));
  const jobs::ModelSpec m = kimi_model();
  EXPECT_LT(worst_error(engine, m, with_decay_scale(m, 0.02), true, "uncut, slow decay"), kLogitRelTolerance);
  EXPECT_GT(worst_error(engine, m, with_decay_scale(m, 40.0), false, "uncut, fast decay"), kLogitRelTolerance);
}

TEST(EngineKdaPrefill, GenomesMayLeaveTheKdaParametersOutAndBadValuesAreNamed) {
  const EngineTemplateParams defaults = engine_params_from_genome(testing::engine_genome());
  EXPECT_EQ(defaults.kda.CHUNK, 0);
  EXPECT_EQ(render_engine_source(defaults).find("namespace kda_kernel"), std::string::npos);
  const std::string chunked = render_engine_source(engine_params_from_genome(kda_genome(32, 16, 2, 8)));
  for (const char* line : {"namespace kda_kernel {", "constexpr int CHUNK = 32;", "constexpr int DV_TILE = 16;",
                           "constexpr long KDA_CHUNK = 32;"})
    EXPECT_NE(chunked.find(line), std::string::npos) << line;
  EXPECT_EQ(chunked.find("extern \"C\" void kforge_kda("), std::string::npos);  // the kernel is internal
  for (const auto& [name, value] :
       {std::pair{"KDA_CHUNK", 8}, {"KDA_DV_TILE", 0}, {"KDA_UNROLL", 17}, {"KDA_VEC", 3}}) {
    jobs::Genome g = kda_genome(32, 16, 2, 8);
    g.params[name] = std::int64_t{value};
    try {
      engine_params_from_genome(g);
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kforge::kernels::engine
