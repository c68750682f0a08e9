#pragma once
// The cuda engine plan's host-side bookkeeping of a step (cuda_engine_plan.hpp): the paged KV cache's block table
// (kv_block > 0: blocks of a shared pool handed to a slot as its sequence grows, and back when a new request starts
// in it), and the step's integer tables as the kernels read them.
#include <cstdint>
#include <span>
#include <vector>

#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_verdict.hpp"

namespace kforge::kernels::cuda::engine {

class KvBlocks {
 public:
  // block 0: one contiguous region of `context` rows per slot, no table.
  KvBlocks(std::int64_t slots, std::int64_t context, std::int64_t block);
  std::int64_t rows() const;                                         // cache rows to allocate per layer
  std::int64_t table_width() const;                                  // blocks per slot (0 when contiguous)
  const std::vector<std::int32_t>& table() const { return table_; }  // [slot][table_width], -1 = none
  void release(std::int64_t slot);  // a new request starts in the slot: its blocks go back to the pool
  // Hands the slot blocks until it covers positions [0, end). Returns whether the table changed.
  bool cover(std::int64_t slot, std::int64_t end);

 private:
  std::int64_t slots_, context_, block_;
  std::vector<std::int32_t> table_;
  std::vector<std::int32_t> free_;  // a stack: the most recently released block is handed out first
};

// One step's integers, in the order the plan's kernels find them: tokens, tok_slot, tok_pos (N each), then
// seq_slot, seq_start, seq_count, seq_row (first token's row), last_row (S each).
enum class StepTable { tokens, tok_slot, tok_pos, seq_slot, seq_start, seq_count, seq_row, last_row };
// Where table `t` starts, in int32 elements, in a step of N tokens and S sequences.
std::int64_t step_table_offset(StepTable t, std::int64_t N, std::int64_t S);

struct StepInts {
  std::vector<std::int32_t> values;
  bool table_changed = false;
};

// Checks a step against the engine's sizes and slot positions (throws std::invalid_argument naming the sequence
// at fault, a slot repeated in the step included, and changes nothing then), advances `positions` and the blocks,
// and lays the step's integers out.
StepInts step_ints(std::span<const kernels::engine::SeqDesc> seqs, std::span<const std::int32_t> tokens,
                   const jobs::ModelSpec& model, const kernels::engine::EngineSizes& sizes,
                   std::vector<std::int64_t>& positions, KvBlocks& blocks);

}  // namespace kforge::kernels::cuda::engine
