// The cheats an engine candidate could try, each a hand-written engine that must be caught as wrong_result by
// verify() (docs/engines.md, "Verification"). Each wraps the honest template engine (its kforge_engine renamed)
// and changes one thing; the identity wrapper passes, so what catches a cheat is the cheat.
#include <gtest/gtest.h>

#include "engine_test_support.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::engine {
namespace {

using testing::ScratchDir;

using testing::wrapped_engine;

VerifyResult verify_source(const std::string& source, const std::string& architecture, const ScratchDir& scratch,
                           const std::string& name) {
  const jobs::EvalSettings s = testing::tiny_engine_settings(architecture);
  const auto backend = make_backend("host", "engine");
  const EvalContext ctx = testing::context(s, scratch.sub(name));
  const jobs::Candidate c = testing::engine_candidate(testing::engine_genome(), source);
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  EXPECT_TRUE(compiled.ok) << name << ":\n" << compiled.log;
  if (!compiled.ok) return {};
  backend->load(compiled);
  return backend->verify(ctx);
}

void expect_caught(const std::string& source, const std::string& architecture, const std::string& name) {
  ScratchDir scratch;
  const VerifyResult v = verify_source(source, architecture, scratch, name);
  EXPECT_EQ(v.status, jobs::Status::wrong_result)
      << name << ": " << v.evidence << " max abs " << v.max_abs_error << " max rel " << v.max_rel_error;
  EXPECT_NE(v.failed_case.find("engine_trace=1 request="), std::string::npos) << name << ": " << v.failed_case;
  EXPECT_NE(v.evidence.find("step"), std::string::npos) << v.evidence;
}

TEST(EngineCheats, TheIdentityWrapperOfTheHonestEnginePasses) {
  ScratchDir scratch;
  const VerifyResult v =
      verify_source(wrapped_engine("", "kforge_honest_engine(args, buffers);"), "llama", scratch, "honest");
  EXPECT_EQ(v.status, jobs::Status::ok) << v.evidence << " " << v.failed_case;
}

// Skipping the last layer: its o_proj and down_proj zeroed at init, so the layer adds nothing to the residual.
TEST(EngineCheats, SkippingALayerIsCaught) {
  const jobs::ModelSpec model = testing::tiny_model("llama");
  Weights w = empty_weights(model);
  std::string zero;
  const std::string last = "model.layers." + std::to_string(model.layers - 1) + ".";
  for (const std::string tensor : {"self_attn.o_proj.weight", "mlp.down_proj.weight"}) {
    for (std::size_t i = 0; i < w.tensors.size(); ++i) {
      if (w.tensors[i].name != last + tensor) continue;
      zero += "std::memset(weights + " + std::to_string(w.offsets[i]) + ", 0, " +
              std::to_string(w.tensors[i].elements()) + " * sizeof(float));\n";
    }
  }
  ASSERT_FALSE(zero.empty());
  expect_caught(wrapped_engine("", "if (args[0] == 0) { float* weights = static_cast<float*>(buffers[0]);\n" + zero +
                                       "}\nkforge_honest_engine(args, buffers);"),
                "llama", "skip_layer");
}

// A new request in a used slot continues the slot's old positions instead of starting at 0 (stale KV / state).
const char* kStaleCacheGlobals = "static std::map<int64_t, int64_t> length_of, offset_of;";
const char* kStaleCacheBody = R"(
  if (args[0] == 1) {
    int64_t* rows = static_cast<int64_t*>(buffers[0]);
    for (int64_t s = 0; s < args[1]; ++s) {
      const int64_t slot = rows[3 * s];
      if (rows[3 * s + 1] == 0) offset_of[slot] = length_of.count(slot) ? length_of[slot] : 0;
      rows[3 * s + 1] += offset_of[slot];
      length_of[slot] = rows[3 * s + 1] + rows[3 * s + 2];
    }
  }
  kforge_honest_engine(args, buffers);)";

TEST(EngineCheats, StaleCacheOnAReusedSlotIsCaughtInLlama) {
  expect_caught(wrapped_engine(kStaleCacheGlobals, kStaleCacheBody), "llama", "stale_cache_llama");
}

TEST(EngineCheats, StaleStateOnAReusedSlotIsCaughtInKimiLinear) {
  expect_caught(wrapped_engine(kStaleCacheGlobals, kStaleCacheBody), "kimi-linear", "stale_cache_kimi");
}

// Logits remembered by (slot, last position) and served again to whichever request comes there next.
TEST(EngineCheats, OutputsMemoisedBySlotAndPositionAreCaught) {
  expect_caught(wrapped_engine("static int64_t vocab = 0;\n"
                               "static std::map<std::pair<int64_t, int64_t>, std::vector<float>> memo;",
                               R"(
  if (args[0] == 0) vocab = args[8];
  kforge_honest_engine(args, buffers);
  if (args[0] == 1) {
    const int64_t* rows = static_cast<const int64_t*>(buffers[0]);
    float* logits = static_cast<float*>(buffers[2]);
    for (int64_t s = 0; s < args[1]; ++s) {
      const auto key = std::make_pair(rows[3 * s], rows[3 * s + 1] + rows[3 * s + 2] - 1);
      float* row = logits + s * vocab;
      auto hit = memo.find(key);
      if (hit != memo.end()) std::memcpy(row, hit->second.data(), vocab * sizeof(float));
      else memo[key] = std::vector<float>(row, row + vocab);
    }
  })"),
                "llama", "memo_slot_position");
}

// A "prefix cache" keyed by the prompt without its last token: two prompts differing only there share logits.
TEST(EngineCheats, OutputsMemoisedByPromptHashAreCaught) {
  expect_caught(wrapped_engine("static int64_t vocab = 0;\n"
                               "static std::map<std::vector<int32_t>, std::vector<float>> memo;",
                               R"(
  if (args[0] == 0) vocab = args[8];
  kforge_honest_engine(args, buffers);
  if (args[0] == 1) {
    const int64_t* rows = static_cast<const int64_t*>(buffers[0]);
    const int32_t* tokens = static_cast<const int32_t*>(buffers[1]);
    float* logits = static_cast<float*>(buffers[2]);
    for (int64_t s = 0; s < args[1]; tokens += rows[3 * s + 2], ++s) {
      if (rows[3 * s + 1] != 0) continue;
      std::vector<int32_t> key(tokens, tokens + rows[3 * s + 2] - 1);
      key.push_back(static_cast<int32_t>(rows[3 * s + 2]));
      float* row = logits + s * vocab;
      auto hit = memo.find(key);
      if (hit != memo.end()) std::memcpy(row, hit->second.data(), vocab * sizeof(float));
      else memo[key] = std::vector<float>(row, row + vocab);
    }
  })"),
                "llama", "memo_prompt_hash");
}

// Every weight rounded to bf16 (round to nearest even) at init: a precision the campaign did not allow.
TEST(EngineCheats, ComputingWithBf16WeightsIsCaught) {
  expect_caught(wrapped_engine("", R"(
  if (args[0] == 0) {
    float* w = static_cast<float*>(buffers[0]);
    int64_t count = 0;  // the weight buffer's size: up to the next buffer (64-byte aligned), in floats
    count = (static_cast<char*>(buffers[1]) - static_cast<char*>(buffers[0])) / static_cast<int64_t>(sizeof(float));
    for (int64_t i = 0; i < count; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &w[i], 4);
      bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
      std::memcpy(&w[i], &bits, 4);
    }
  }
  kforge_honest_engine(args, buffers);)"),
                "llama", "bf16");
}

}  // namespace
}  // namespace kforge::kernels::engine
