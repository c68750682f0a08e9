#pragma once
// Shared by the engine template tests: genomes covering the template's options, and the serving script run on a
// rendered engine against the double reference.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/engine_template.hpp"
#include "engine_model_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/reference_engine.hpp"

namespace kforge::kernels::engine::template_testing {

using model_testing::AbiEngine;

inline jobs::Genome genome(int gemm_variant, int fuse_qkv, int fuse_gate_up, int fold_norm, int residual, int prepack,
                           int kv_block, int threads) {
  jobs::Genome g;
  using I = std::int64_t;
  if (gemm_variant == 0)  // packed, SIMD tiles
    g.params = {{"MC", I{32}},    {"NC", I{64}},  {"KC", I{48}},
                {"MR", I{4}},     {"NR", I{16}},  {"VEC", I{8}},
                {"UNROLL", I{2}}, {"PACK", I{1}}, {"LOOP_ORDER", std::string("jpi")}};
  else if (gemm_variant == 3)  // tiles of 2 rows: the prepacked path puts 2 panels side by side (P_FULL = 2)
    g.params = {{"MC", I{32}},    {"NC", I{64}},  {"KC", I{48}},
                {"MR", I{2}},     {"NR", I{16}},  {"VEC", I{8}},
                {"UNROLL", I{4}}, {"PACK", I{0}}, {"LOOP_ORDER", std::string("jpi")}};
  else if (gemm_variant == 4)  // 16-float vectors, 8-row tiles (the example campaign's fastest kind)
    g.params = {{"MC", I{64}},    {"NC", I{256}}, {"KC", I{256}},
                {"MR", I{8}},     {"NR", I{32}},  {"VEC", I{16}},
                {"UNROLL", I{4}}, {"PACK", I{1}}, {"LOOP_ORDER", std::string("jpi")}};
  else  // unpacked, scalar, odd tiles
    g.params = {{"MC", I{24}},    {"NC", I{40}},  {"KC", I{20}},
                {"MR", I{3}},     {"NR", I{5}},   {"VEC", I{1}},
                {"UNROLL", I{1}}, {"PACK", I{0}}, {"LOOP_ORDER", std::string(gemm_variant == 1 ? "pji" : "jip")}};
  g.params["fuse_qkv"] = I{fuse_qkv};
  g.params["fuse_gate_up"] = I{fuse_gate_up};
  g.params["fold_norm"] = I{fold_norm};
  g.params["residual_epilogue"] = I{residual};
  g.params["prepack"] = I{prepack};
  g.params["kv_block"] = I{kv_block};
  g.params["threads"] = I{threads};
  g.params["max_batch"] = I{4};
  g.params["prefill_chunk"] = I{16};
  g.params["schedule"] = std::string("decode_first");
  return g;
}

inline std::filesystem::path work_dir(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("kforge-engine-template-" + std::to_string(::getpid())) / name;
}

// Runs the serving script on the engine and the reference; returns the largest relative error seen and fails the
// test on any step outside the tolerance or any greedy disagreement.
inline double run_script(AbiEngine& engine, const jobs::ModelSpec& m, const Weights& engine_weights,
                         const Weights& true_weights, bool expect_ok, const std::string& what) {
  const int slots = 3, context = 64;
  ReferenceEngine reference(m, true_weights, slots, context);
  engine.init(m, engine_weights, slots, context);
  double worst = 0.0;
  bool all_ok = true;
  for (const auto& step : model_testing::serving_script(m.vocab)) {
    const auto want = reference.step(step.seqs, step.tokens);
    const auto got = engine.step(step.seqs, step.tokens);
    const LogitCheck check = compare_logits(want, got, m.vocab);
    worst = std::max(worst, check.max_rel);
    all_ok = all_ok && check.ok;
    if (expect_ok) {
      EXPECT_TRUE(check.ok) << what << ": " << check.evidence;
      for (std::size_t s = 0; s < step.seqs.size(); ++s)
        EXPECT_TRUE(greedy_agrees({want.data() + s * m.vocab, static_cast<std::size_t>(m.vocab)},
                                  {got.data() + s * m.vocab, static_cast<std::size_t>(m.vocab)}))
            << what;
      for (double sec : engine.seconds) EXPECT_GE(sec, 0.0) << what;
    }
  }
  if (!expect_ok) {
    EXPECT_FALSE(all_ok) << what << ": max relative error " << worst;
  }
  return worst;
}

struct Case {
  jobs::Genome genome;
  std::vector<jobs::ModelSpec> models;
};

}  // namespace kforge::kernels::engine::template_testing
