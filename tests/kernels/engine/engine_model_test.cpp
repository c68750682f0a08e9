// The engine model (kernels/engine: model_weights, reference_engine): tensor lists, weight files and the
// double-precision reference engine's serving semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine_model_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"

namespace kforge::kernels::engine {
namespace {

using model_testing::small_model;

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("kforge-engine-model-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::int64_t total_elements(const std::vector<TensorInfo>& list) {
  std::int64_t n = 0;
  for (const auto& t : list) n += t.elements();
  return n;
}

TEST(EngineModel, LlamaTensorListHasHuggingFaceNamesAndSizes) {
  const auto m = small_model("llama", /*tied=*/false);
  const auto list = tensor_list(m);
  ASSERT_EQ(list.size(), 1u + 2 * 9 + 2);
  EXPECT_EQ(list.front(), (TensorInfo{"model.embed_tokens.weight", {256, 64}}));
  EXPECT_EQ(list[3], (TensorInfo{"model.layers.0.self_attn.k_proj.weight", {32, 64}}));  // kv_heads 2 x 16
  EXPECT_EQ(list[5], (TensorInfo{"model.layers.0.self_attn.o_proj.weight", {64, 64}}));
  EXPECT_EQ(list[9], (TensorInfo{"model.layers.0.mlp.down_proj.weight", {64, 96}}));
  EXPECT_EQ(list.back(), (TensorInfo{"lm_head.weight", {256, 64}}));
  const std::int64_t per_layer = 2 * 64 + 64 * 64 * 2 + 2 * 32 * 64 + 3 * 96 * 64;
  EXPECT_EQ(total_elements(list), 2 * 256 * 64 + 2 * per_layer + 64);
  EXPECT_EQ(tensor_list(small_model("llama", true)).size(), list.size() - 1);  // tied: no lm_head
}

TEST(EngineModel, KimiLinearAlternatesKdaAndAttentionLayers) {
  auto m = small_model("kimi-linear", true, 4);
  m.layers = 4;
  for (std::int64_t l = 0; l < 4; ++l) EXPECT_EQ(is_attention_layer(m, l), l == 3) << l;
  const auto list = tensor_list(m);
  const Weights w = empty_weights(m);
  EXPECT_NE(w.tensor("model.layers.0.self_attn.f_proj.weight"), nullptr);
  EXPECT_EQ(w.tensor("model.layers.3.self_attn.f_proj.weight"), nullptr);
  for (const auto& t : list) {
    if (t.name == "model.layers.0.self_attn.b_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<std::int64_t>{4, 64}));
    }
    if (t.name == "model.layers.0.self_attn.k_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<std::int64_t>{64, 64}));
    }
    if (t.name == "model.layers.3.self_attn.k_proj.weight") {
      EXPECT_EQ(t.shape, (std::vector<std::int64_t>{32, 64}));
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(w.data.size()), total_elements(list));
}

TEST(EngineModel, BadSizesAreRefused) {
  auto m = small_model("llama");
  m.kv_heads = 3;
  EXPECT_THROW(tensor_list(m), std::invalid_argument);
  m = small_model("mamba");
  EXPECT_THROW(tensor_list(m), std::invalid_argument);
}

TEST(EngineModel, RandomWeightsAreDeterministicAndSeeded) {
  auto m = small_model("kimi-linear", false);
  const Weights a = random_weights(m), b = random_weights(m);
  EXPECT_EQ(a.data, b.data);
  m.weight_seed = 8;
  EXPECT_NE(random_weights(m).data, a.data);
  const float* gamma = a.tensor("model.norm.weight");
  EXPECT_NE(gamma[0], 1.0f);  // gammas differ from one, so folding them into the next GEMM matters
  EXPECT_NEAR(gamma[0], 1.0f, 0.26f);
}

TEST(EngineModel, SafetensorsAndHdf5RoundTripBitIdentical) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    auto m = small_model(arch, false);
    const Weights w = random_weights(m);
    for (const char* ext : {".safetensors", ".h5"}) {
      m.weights_file = scratch(std::string("round") + arch + ext).string();
      if (std::string(ext) == ".h5")
        write_weights_h5(m.weights_file, w);
      else
        write_safetensors(m.weights_file, w);
      const Weights back = load_weights(m);
      EXPECT_EQ(back.tensors, w.tensors);
      ASSERT_EQ(back.data.size(), w.data.size());
      EXPECT_EQ(std::memcmp(back.data.data(), w.data.data(), w.data.size() * sizeof(float)), 0) << arch << ext;
    }
  }
}

TEST(EngineModel, WeightFileOfAnotherShapeNamesTheTensorAndBothShapes) {
  auto written = small_model("llama");
  written.mlp_hidden = 80;
  const Weights w = random_weights(written);
  for (const char* ext : {".safetensors", ".h5"}) {
    auto m = small_model("llama");
    m.weights_file = scratch(std::string("shape") + ext).string();
    if (std::string(ext) == ".h5")
      write_weights_h5(m.weights_file, w);
    else
      write_safetensors(m.weights_file, w);
    try {
      load_weights(m);
      ADD_FAILURE() << "a file with other shapes loaded";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(m.weights_file), std::string::npos) << what;
      EXPECT_NE(what.find("tensor model.layers.0.mlp.gate_proj.weight has shape [80, 64], expected [96, 64]"),
                std::string::npos)
          << what;
    }
  }
}

TEST(EngineModel, MissingAndExtraTensorsAreNamed) {
  const auto tied = small_model("llama", true), untied = small_model("llama", false);
  auto m = untied;
  m.weights_file = scratch("missing.safetensors").string();
  write_safetensors(m.weights_file, random_weights(tied));  // no lm_head.weight
  try {
    load_weights(m);
    ADD_FAILURE() << "loaded without lm_head";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("lm_head.weight is missing (expected shape [256, 64]"), std::string::npos)
        << e.what();
  }
  m = tied;
  m.weights_file = scratch("extra.h5").string();
  write_weights_h5(m.weights_file, random_weights(untied));
  try {
    load_weights(m);
    ADD_FAILURE() << "loaded with an extra tensor";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("lm_head.weight (shape [256, 64]) is not part of the model"),
              std::string::npos)
        << e.what();
  }
}

TEST(EngineModel, Bf16SafetensorsAreRead) {
  // A BF16 file written here by hand: every value (1.5, -2) is exact in bf16, so the load must be exact.
  const auto m0 = small_model("llama");
  Weights w = random_weights(m0);
  for (std::size_t i = 0; i < w.data.size(); ++i) w.data[i] = i % 2 ? 1.5f : -2.0f;
  nlohmann::json header;
  std::string bytes;
  for (const auto& t : w.tensors) {
    header[t.name] = {
        {"dtype", "BF16"}, {"shape", t.shape}, {"data_offsets", {bytes.size(), bytes.size() + 2 * t.elements()}}};
    const float* src = w.tensor(t.name);
    for (std::int64_t e = 0; e < t.elements(); ++e) {
      std::uint32_t bits;
      std::memcpy(&bits, src + e, 4);
      bytes.push_back(static_cast<char>((bits >> 16) & 0xff));
      bytes.push_back(static_cast<char>(bits >> 24));
    }
  }
  const std::string text = header.dump();
  auto m = m0;
  m.weights_file = scratch("bf16.safetensors").string();
  std::ofstream out(m.weights_file, std::ios::binary);
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  out << text << bytes;
  out.close();
  EXPECT_EQ(load_weights(m).data, w.data);
}

TEST(EngineTolerance, RowScaledBoundNanAndNearTies) {
  const std::vector<double> ref = {10.0, -3.0, 0.5, 9.9995};
  std::vector<float> got = {10.0005f, -3.0f, 0.5f, 9.9995f};  // 5e-4 off, scale 10: within 1e-4 x 10
  EXPECT_TRUE(compare_logits(ref, got, 4).ok);
  got[2] = 0.5f + 2e-3f;  // a small logit 2e-3 off: judged against the row's largest
  const LogitCheck off = compare_logits(ref, got, 4);
  EXPECT_FALSE(off.ok);
  EXPECT_NE(off.evidence.find("token 2"), std::string::npos) << off.evidence;
  got[2] = NAN;
  EXPECT_FALSE(compare_logits(ref, got, 4).ok);
  EXPECT_FALSE(compare_logits(ref, std::vector<float>(3, 0.0f), 4).ok);  // wrong count
  // Greedy: token 3 is a near tie with token 0 (5e-4 apart, within 2 x 1e-4 x 10); token 1 is not.
  EXPECT_TRUE(greedy_agrees(ref, std::vector<float>{1, 0, 0, 2}));
  EXPECT_FALSE(greedy_agrees(ref, std::vector<float>{0, 1, 0, 0}));
}

std::vector<double> last_row(const std::vector<double>& logits, std::int64_t vocab, std::size_t row) {
  return {logits.begin() + static_cast<std::ptrdiff_t>(row * vocab),
          logits.begin() + static_cast<std::ptrdiff_t>((row + 1) * vocab)};
}

TEST(ReferenceEngine, IncrementalDecodeEqualsOneShotPrefill) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    const auto m = small_model(arch);
    const Weights w = random_weights(m);
    const std::vector<std::int32_t> seq = {5, 17, 200, 3, 99, 41, 7, 255, 0, 64, 12, 8};
    ReferenceEngine whole(m, w, 1, 32), pieces(m, w, 1, 32);
    const auto expect = whole.step({{0, 0, 12}}, seq);
    pieces.step({{0, 0, 5}}, {seq.begin(), seq.begin() + 5});
    pieces.step({{0, 5, 4}}, {seq.begin() + 5, seq.begin() + 9});
    std::vector<double> got;
    for (int t = 9; t < 12; ++t) got = pieces.step({{0, t, 1}}, {seq[t]});
    ASSERT_EQ(got.size(), expect.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], expect[i], 1e-9 * (1 + std::abs(expect[i]))) << arch;
    EXPECT_EQ(pieces.position(0), 12);
  }
}

TEST(ReferenceEngine, StartPositionZeroResetsTheSlotAndSlotsAreIndependent) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    const auto m = small_model(arch);
    const Weights w = random_weights(m);
    ReferenceEngine fresh(m, w, 2, 32), used(m, w, 2, 32);
    const auto want = fresh.step({{0, 0, 3}}, {1, 2, 3});
    used.step({{0, 0, 6}, {1, 0, 2}}, {9, 9, 9, 9, 9, 9, 4, 4});
    const auto got = used.step({{0, 0, 3}, {1, 2, 1}}, {1, 2, 3, 5});  // slot 0 restarts while slot 1 decodes
    // Equal up to the order of a matrix product's sums, which may differ with the number of rows in a step.
    const auto expect_near = [&](const std::vector<double>& a, const std::vector<double>& b) {
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-11 * (1 + std::abs(b[i]))) << arch;
    };
    expect_near(last_row(got, m.vocab, 0), want);
    ReferenceEngine alone(m, w, 2, 32);
    alone.step({{1, 0, 2}}, {4, 4});
    expect_near(last_row(got, m.vocab, 1), alone.step({{1, 2, 1}}, {5}));
    EXPECT_NE(last_row(got, m.vocab, 0), last_row(got, m.vocab, 1));
  }
}

TEST(ReferenceEngine, RefusesStepsThatBreakTheSemantics) {
  const auto m = small_model("llama");
  ReferenceEngine e(m, random_weights(m), 2, 8);
  EXPECT_THROW(e.step({{2, 0, 1}}, {1}), std::invalid_argument);  // slot out of range
  EXPECT_THROW(e.step({{0, 3, 1}}, {1}), std::invalid_argument);  // does not continue the slot
  EXPECT_THROW(e.step({{0, 0, 9}}, std::vector<std::int32_t>(9, 1)), std::invalid_argument);  // past max_context
  EXPECT_THROW(e.step({{0, 0, 1}}, {256}), std::invalid_argument);                            // token out of range
  EXPECT_THROW(e.step({{0, 0, 2}}, {1}), std::invalid_argument);                              // counts do not add up
  EXPECT_EQ(e.position(0), 0);
}

// The blocked arithmetic (a step's tokens through each layer together, dgemm projections) against the plainest
// statement of the math: chunks, several slots in one step, decode, a slot reused, on every architecture.
TEST(ReferenceEngine, BlockedStepsEqualTheScalarStepsOnEveryArchitecture) {
  std::vector<jobs::ModelSpec> models = {small_model("llama"), small_model("llama", false), small_model("kimi-linear"),
                                         small_model("kimi-linear", false, 1)};
  models.push_back(small_model("llama"));
  models.back().head_dim = 24;  // heads x head_dim wider than hidden
  models.push_back(small_model("llama", false));
  models.back().qkv_bias = true;  // Qwen2
  models.push_back(small_model("llama"));
  models.back().qk_norm = true;  // Qwen3
  const std::vector<std::pair<std::vector<SeqDesc>, std::vector<std::int32_t>>> steps = {
      {{{0, 0, 5}, {2, 0, 3}}, {5, 17, 200, 3, 99, 41, 7, 255}},
      {{{0, 5, 4}, {1, 0, 1}, {2, 3, 1}}, {0, 64, 12, 8, 1, 2}},
      {{{0, 9, 1}, {1, 1, 1}, {2, 4, 1}}, {30, 31, 32}},
      {{{2, 0, 6}, {0, 10, 1}}, {9, 8, 7, 6, 5, 4, 77}}};  // slot 2 serves a new request
  for (const jobs::ModelSpec& m : models) {
    const Weights w = random_weights(m);
    ReferenceEngine blocked(m, w, 3, 32), scalar(m, w, 3, 32, ReferenceArithmetic::scalar);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto want = scalar.step(steps[i].first, steps[i].second);
      const auto got = blocked.step(steps[i].first, steps[i].second);
      ASSERT_EQ(got.size(), want.size());
      double worst = 0.0;
      for (std::size_t j = 0; j < got.size(); ++j) worst = std::max(worst, std::abs(got[j] - want[j]));
      EXPECT_LT(worst, 1e-11) << m.architecture << " tied " << m.tied_embeddings << " step " << i;
    }
    for (int slot = 0; slot < 3; ++slot) EXPECT_EQ(blocked.position(slot), scalar.position(slot));
  }
}

// The threads the cuda backend gives the reference (set_reference_threads, from the rank's share of the node) change
// how long its products take, not what they give: a step and a teacher-forced check at 4 threads against 1, at sizes
// OpenBLAS splits between threads.
TEST(ReferenceEngine, ThreadsChangeNothingButTheTime) {
  jobs::ModelSpec m = small_model("llama", false);
  m.hidden = 256;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 64;
  m.mlp_hidden = 1024;
  m.vocab = 2048;
  const Weights w = random_weights(m);
  std::vector<std::int32_t> tokens;
  for (int i = 0; i < 96; ++i) tokens.push_back((i * 37 + 5) % 2048);
  const auto run = [&](int threads) {
    set_reference_threads(threads);
    ReferenceEngine e(m, w, 1, 128);
    std::vector<double> out = e.step({{0, 0, 96}}, tokens);
    const std::vector<ForcedSequence> forced{{tokens, 90}};
    for (const auto& row : e.teacher_forced(forced)) out.insert(out.end(), row.begin(), row.end());
    return out;
  };
  const std::vector<double> one = run(1), four = run(4);
  EXPECT_EQ(reference_threads(), 4);
  set_reference_threads(0);  // clamped: at least one
  EXPECT_EQ(reference_threads(), 1);
  ASSERT_EQ(one.size(), four.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < one.size(); ++i) worst = std::max(worst, std::abs(one[i] - four[i]));
  EXPECT_LT(worst, 1e-11);
}

TEST(ReferenceEngine, LogitsAreSpreadNotTies) {
  auto m = small_model("llama", false);
  m.layers = 8;
  ReferenceEngine e(m, random_weights(m), 1, 16);
  const auto logits = e.step({{0, 0, 4}}, {1, 2, 3, 4});
  double lo = logits[0], hi = logits[0];
  for (double x : logits) lo = std::min(lo, x), hi = std::max(hi, x);
  EXPECT_GT(hi - lo, 4.0);
  EXPECT_LT(hi - lo, 200.0);
}

}  // namespace
}  // namespace kforge::kernels::engine
