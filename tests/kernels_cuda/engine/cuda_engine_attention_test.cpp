// The cuda engine's attention kernels beside kf_attention, on the CPU emulation of the module (a FAKE GPU): each
// computes kf_attention's model where the genome asks for it, and a mistaken one is caught exactly there.
#include <gtest/gtest.h>

#include "emulated_backend.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using testing::expect_correct;
using testing::verified_with_edit;

// `gene` 1 on both architectures, over the contiguous cache and over the paged one with a single warp.
void expect_correct_on_both_caches(const char* gene) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    expect_correct(testing::settings(arch), testing::genome_with({{gene, 1}}));
    expect_correct(testing::settings(arch), testing::genome_with({{gene, 1}, {"kv_block", 16}, {"ATTN_THREADS", 32}}));
  }
}

// kf_attention_group (ATTN_GROUP): K and V read once per grouped-query group give kf_attention's results, over the
// contiguous and the paged cache, with tiles shorter than the trace's 73 positions (head_dim 32: 128 positions
// per tile; head_dim 16: 256), and in kimi-linear's attention layers.
TEST(CudaEngineEmulated, GroupedAttentionComputesTheSameModel) {
  expect_correct_on_both_caches("ATTN_GROUP");
  jobs::EvalSettings wide = testing::settings("llama");
  wide.engine.model.head_dim = 32;
  expect_correct(wide, testing::genome_with({{"ATTN_GROUP", 1}, {"ATTN_THREADS", 256}, {"GEMV_ROWS", 4}}));
}

// The grouped kernel is launched exactly where the genome asks for it: a wrong one is caught with ATTN_GROUP 1 and
// never launched with 0.
TEST(CudaEngineEmulated, AWrongGroupedAttentionIsCaughtWhereTheGenomeUsesIt) {
  for (const std::int64_t group : {1, 0})  // every position's value that of position 0
    EXPECT_EQ(
        verified_with_edit(testing::genome_with({{"ATTN_GROUP", group}}), "vs[i][d] = kv_get(v_cache[rows[i] + d]);",
                           "vs[i][d] = kv_get(v_cache[rows[0] + d]);"),
        group ? jobs::Status::wrong_result : jobs::Status::ok)
        << "ATTN_GROUP " << group;
}

// kf_attention_tiles (ATTN_QTILE): on steps that feed prompts, keys and values read once per tile of tokens give
// kf_attention's results: tiles of 8 tokens (2 query heads per KV head) that hold the chunks of two sequences at
// once, over the contiguous and the paged cache, in kimi-linear's attention layers, at head_dim 64 (48 positions per
// key tile, fewer than the trace's 73; 192 at head_dim 16), a group of 4 (4 tokens per tile) and none (16).
TEST(CudaEngineEmulated, QueryTiledAttentionComputesTheSameModel) {
  expect_correct_on_both_caches("ATTN_QTILE");
  jobs::EvalSettings wide = testing::settings("llama");
  wide.engine.model.head_dim = 64;
  expect_correct(wide, testing::genome_with({{"ATTN_QTILE", 1}, {"ATTN_GROUP", 1}, {"ATTN_THREADS", 256}}));
  jobs::EvalSettings grouped = testing::settings("llama");
  grouped.engine.model.kv_heads = 1;
  expect_correct(grouped, testing::genome_with({{"ATTN_QTILE", 1}, {"prefill_chunk", 64}}));
  jobs::EvalSettings every_head = testing::settings("llama");
  every_head.engine.model.kv_heads = every_head.engine.model.heads;
  expect_correct(every_head, testing::genome_with({{"ATTN_QTILE", 1}, {"kv_block", 32}}));
}

// The tiled kernel is launched exactly where the genome asks for it, and each of its rules matters: a row that sees
// the positions after its own, a tile's second sequence read from the first one's slot, and a row updated in
// another sequence's pass are each a wrong result with ATTN_QTILE 1 and harmless with 0 (not compiled).
TEST(CudaEngineEmulated, AWrongQueryTiledAttentionIsCaughtWhereTheGenomeUsesIt) {
  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"seen = min(n, tok_pos[t0 + r / group] + 1 - s0);", "seen = n;"},
      {"while (end < count && tok_slot[t0 + end / group] == slot) {", "while (end < count) {"},
      {"if (r < first || r >= end) continue;", "if (r >= count) continue;"}};
  for (const auto& [from, to] : mistakes)
    for (const std::int64_t tiles : {1, 0})
      EXPECT_EQ(verified_with_edit(testing::genome_with({{"ATTN_QTILE", tiles}}), from, to),
                tiles ? jobs::Status::wrong_result : jobs::Status::ok)
          << "ATTN_QTILE " << tiles << ": " << from;
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
