#include "cuda_engine_kv_blocks.hpp"

#include <stdexcept>
#include <string>

namespace kforge::kernels::cuda::engine {

KvBlocks::KvBlocks(std::int64_t slots, std::int64_t context, std::int64_t block)
    : slots_(slots), context_(context), block_(block) {
  if (block_ <= 0) return;
  table_.assign(static_cast<std::size_t>(slots_ * table_width()), -1);
  for (std::int64_t b = slots_ * table_width() - 1; b >= 0; --b) free_.push_back(static_cast<std::int32_t>(b));
}

std::int64_t KvBlocks::rows() const { return block_ > 0 ? slots_ * table_width() * block_ : slots_ * context_; }

std::int64_t KvBlocks::table_width() const { return block_ > 0 ? (context_ + block_ - 1) / block_ : 0; }

void KvBlocks::release(std::int64_t slot) {
  for (std::int64_t j = table_width() - 1; j >= 0; --j) {  // the slot's first block is handed out first again
    std::int32_t& entry = table_[static_cast<std::size_t>(slot * table_width() + j)];
    if (entry >= 0) free_.push_back(entry);
    entry = -1;
  }
}

bool KvBlocks::cover(std::int64_t slot, std::int64_t end) {
  bool changed = false;
  for (std::int64_t j = 0; block_ > 0 && j < (end + block_ - 1) / block_; ++j) {
    std::int32_t& entry = table_[static_cast<std::size_t>(slot * table_width() + j)];
    if (entry >= 0) continue;
    if (free_.empty()) throw std::logic_error("cuda engine: the KV block pool is exhausted");  // sized for all slots
    entry = free_.back();
    free_.pop_back();
    changed = true;
  }
  return changed;
}

std::int64_t step_table_offset(StepTable t, std::int64_t N, std::int64_t S) {
  const auto k = static_cast<std::int64_t>(t);
  return k < 3 ? k * N : 3 * N + (k - 3) * S;
}

StepInts step_ints(std::span<const kernels::engine::SeqDesc> seqs, std::span<const std::int32_t> tokens,
                   const jobs::ModelSpec& model, const kernels::engine::EngineSizes& sizes,
                   std::vector<std::int64_t>& positions, KvBlocks& blocks) {
  const auto S = static_cast<std::int64_t>(seqs.size()), N = static_cast<std::int64_t>(tokens.size());
  if (S < 1 || S > sizes.most_sequences || N > sizes.most_tokens)
    throw std::invalid_argument("cuda engine: a step of " + std::to_string(S) + " sequences and " + std::to_string(N) +
                                " tokens; the engine holds 1.." + std::to_string(sizes.most_sequences) +
                                " sequences and up to " + std::to_string(sizes.most_tokens) + " tokens");
  // Every sequence is checked before anything changes: a refused step leaves the slots and blocks as they were.
  std::vector<bool> seen(static_cast<std::size_t>(sizes.slots), false);
  std::int64_t row = 0;
  for (std::int64_t s = 0; s < S; ++s) {
    const kernels::engine::SeqDesc& q = seqs[static_cast<std::size_t>(s)];
    const std::string which = "cuda engine: sequence " + std::to_string(s) + " (slot " + std::to_string(q.slot) + ")";
    if (q.slot < 0 || q.slot >= sizes.slots) throw std::invalid_argument(which + ": no such slot");
    // Two sequences of one slot in one step would have the KDA blocks of both update the slot's state at once.
    if (seen[static_cast<std::size_t>(q.slot)])
      throw std::invalid_argument(which + ": the slot is repeated in the step");
    seen[static_cast<std::size_t>(q.slot)] = true;
    const std::int64_t held = positions[static_cast<std::size_t>(q.slot)];
    if (q.start_position != 0 && q.start_position != held)
      throw std::invalid_argument(which + " starts at " + std::to_string(q.start_position) + " but the slot holds " +
                                  std::to_string(held) + " tokens");
    if (q.token_count < 1 || row + q.token_count > N || q.start_position + q.token_count > sizes.max_context)
      throw std::invalid_argument(which + ": " + std::to_string(q.token_count) +
                                  " tokens do not fit the step or context");
    for (std::int64_t t = 0; t < q.token_count; ++t, ++row) {
      const std::int32_t token = tokens[static_cast<std::size_t>(row)];
      if (token < 0 || token >= model.vocab)
        throw std::invalid_argument(which + ": token " + std::to_string(token) + " is outside the vocabulary");
    }
  }
  if (row != N)
    throw std::invalid_argument("cuda engine: the sequences hold " + std::to_string(row) + " tokens, the step " +
                                std::to_string(N));

  StepInts out;
  out.values.assign(static_cast<std::size_t>(3 * N + 5 * S), 0);
  auto at = [&](StepTable table, std::int64_t i) -> std::int32_t& {
    return out.values[static_cast<std::size_t>(step_table_offset(table, N, S) + i)];
  };
  row = 0;
  for (std::int64_t s = 0; s < S; ++s) {
    const kernels::engine::SeqDesc& q = seqs[static_cast<std::size_t>(s)];
    if (q.start_position == 0) blocks.release(q.slot);
    out.table_changed |= blocks.cover(q.slot, q.start_position + q.token_count);
    positions[static_cast<std::size_t>(q.slot)] = q.start_position + q.token_count;
    at(StepTable::seq_slot, s) = static_cast<std::int32_t>(q.slot);
    at(StepTable::seq_start, s) = static_cast<std::int32_t>(q.start_position);
    at(StepTable::seq_count, s) = static_cast<std::int32_t>(q.token_count);
    at(StepTable::seq_row, s) = static_cast<std::int32_t>(row);
    at(StepTable::last_row, s) = static_cast<std::int32_t>(row + q.token_count - 1);
    for (std::int64_t t = 0; t < q.token_count; ++t, ++row) {
      at(StepTable::tokens, row) = tokens[static_cast<std::size_t>(row)];
      at(StepTable::tok_slot, row) = static_cast<std::int32_t>(q.slot);
      at(StepTable::tok_pos, row) = static_cast<std::int32_t>(q.start_position + t);
    }
  }
  return out;
}

}  // namespace kforge::kernels::cuda::engine
