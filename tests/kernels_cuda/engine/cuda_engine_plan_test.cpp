// The cuda engine plan's host-side bookkeeping: the paged KV cache's blocks (handed out as a sequence grows, back
// to the pool when a new request starts in the slot, reused by others) and the checks of a step against the
// engine's sizes and slot positions.
#include <gtest/gtest.h>

#include "cuda_engine_kv_blocks.hpp"
#include "cuda_engine_test_support.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using kernels::engine::EngineSizes;
using kernels::engine::SeqDesc;

TEST(CudaEngineKvBlocks, ContiguousCachesHaveNoTable) {
  KvBlocks b(3, 100, 0);
  EXPECT_EQ(b.rows(), 300);
  EXPECT_EQ(b.table_width(), 0);
  EXPECT_FALSE(b.cover(1, 100));
}

TEST(CudaEngineKvBlocks, BlocksAreHandedOutAsASequenceGrowsAndReusedAfterARelease) {
  KvBlocks b(2, 40, 16);  // 3 blocks per slot, 6 in the pool
  EXPECT_EQ(b.rows(), 6 * 16);
  EXPECT_TRUE(b.cover(0, 5));   // slot 0: block 0
  EXPECT_TRUE(b.cover(1, 20));  // slot 1: blocks 1, 2
  EXPECT_FALSE(b.cover(0, 16));
  EXPECT_TRUE(b.cover(0, 17));  // slot 0 grows into a second block: 3
  EXPECT_EQ(b.table(), (std::vector<std::int32_t>{0, 3, -1, 1, 2, -1}));
  b.release(1);  // a new request in slot 1: its blocks go back; the next grows reuse them
  EXPECT_TRUE(b.cover(0, 40));
  EXPECT_EQ(b.table()[2], 1);
  EXPECT_EQ(b.table()[3], -1);
}

TEST(CudaEngineStepInts, AStepIsLaidOutAsTheKernelsReadIt) {
  const jobs::ModelSpec m = testing::settings("llama").engine.model;
  const EngineSizes z{2, 32, 2, 8};
  std::vector<std::int64_t> positions(2, 0);
  KvBlocks blocks(2, 32, 16);
  const std::vector<SeqDesc> first{{0, 0, 3}, {1, 0, 2}};
  const StepInts a = step_ints(first, std::vector<std::int32_t>{5, 6, 7, 8, 9}, m, z, positions, blocks);
  EXPECT_EQ(a.values, (std::vector<std::int32_t>{5, 6, 7, 8, 9,  // tokens
                                                 0, 0, 0, 1, 1,  // slot of each token
                                                 0, 1, 2, 0, 1,  // position of each token
                                                 0, 1,           // seq_slot
                                                 0, 0,           // seq_start
                                                 3, 2,           // seq_count
                                                 0, 3,           // seq_row
                                                 2, 4}));        // last_row
  EXPECT_TRUE(a.table_changed);
  EXPECT_EQ(positions, (std::vector<std::int64_t>{3, 2}));
  const std::vector<SeqDesc> decode{{1, 2, 1}};
  const StepInts b = step_ints(decode, std::vector<std::int32_t>{4}, m, z, positions, blocks);
  EXPECT_FALSE(b.table_changed);
}

TEST(CudaEngineStepInts, AStepTheEngineWasNotSizedForIsRefusedNamingTheSequence) {
  const jobs::ModelSpec m = testing::settings("llama").engine.model;
  const EngineSizes z{2, 8, 2, 8};
  std::vector<std::int64_t> positions(2, 0);
  KvBlocks blocks(2, 8, 0);
  const auto refuses = [&](std::vector<SeqDesc> seqs, std::vector<std::int32_t> tokens, const std::string& why) {
    try {
      step_ints(seqs, tokens, m, z, positions, blocks);
      ADD_FAILURE() << "accepted; expected: " << why;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refuses({{2, 0, 1}}, {1}, "sequence 0 (slot 2): no such slot");
  refuses({{0, 3, 1}}, {1}, "starts at 3 but the slot holds 0 tokens");
  refuses({{0, 0, 9}}, std::vector<std::int32_t>(9, 1), "a step of 1 sequences and 9 tokens");
  refuses({{0, 0, 2}}, {1, 256}, "token 256 is outside the vocabulary");
  refuses({{0, 0, 1}}, {1, 2}, "the sequences hold 1 tokens, the step 2");
  refuses({{0, 0, 1}, {0, 1, 1}}, {1, 2}, "sequence 1 (slot 0): the slot is repeated in the step");
  // A refused step changed nothing: slot 0 still holds no token, and a step that starts it is accepted.
  refuses({{0, 0, 2}, {1, 0, 1}}, {1, 2, 999}, "token 999 is outside the vocabulary");
  EXPECT_EQ(positions, (std::vector<std::int64_t>{0, 0}));
  EXPECT_NO_THROW(step_ints(std::vector<SeqDesc>{{0, 0, 1}}, std::vector<std::int32_t>{1}, m, z, positions, blocks));
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
