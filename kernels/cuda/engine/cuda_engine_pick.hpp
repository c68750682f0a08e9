#pragma once
// The harness's own device code beside a cuda engine's module (docs/isolation.md, "Engines"): it reduces each
// logit row on the device to what serve() keeps of it (serving_loop.hpp: RowWants, and pick_rows, the
// specification), so a served step copies back a token and columns + 1 values per row where it copied the whole
// vocabulary (Llama-3.2-1B: 501 KiB per row). Compiled from this text alone, never from a candidate's, into a module
// of its own; which rows and columns it reads is the plan's (cuda_engine_plan.cpp).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "family.hpp"
#include "kforge/engine/serving_loop.hpp"

namespace kforge::kernels::cuda::engine {

// Two kernels: kf_pick_part, one block per chunk of kPickChunk logits of a row (its largest value, the lowest index
// of it, or -1 when the chunk holds a logit that is not finite); kf_pick_row, one block per row, the chunks' winner
// and the values at the asked columns.
std::string pick_module_source();
inline constexpr std::string_view kPickPart = "kf_pick_part", kPickRow = "kf_pick_row";
inline constexpr int kPickThreads = 256;
inline constexpr std::int64_t kPickChunk = 16 * kPickThreads;  // 16 independent loads in flight per thread

// Chunks of a row of `vocab` logits.
std::int64_t pick_chunks(std::int64_t vocab);
LaunchConfig pick_part_launch(std::int64_t vocab, std::int64_t rows);
LaunchConfig pick_row_launch(std::int64_t rows);

// What kf_pick_row writes per row, in 32-bit words: the greedy token (-1: not finite), the values at the columns,
// the value at the token.
inline std::int64_t picked_words(std::int64_t columns) { return columns + 2; }
// Those words, rows after rows, as serve() takes them.
kernels::engine::PickedRows picked_rows_of(std::span<const std::uint32_t> words, std::size_t columns);

}  // namespace kforge::kernels::cuda::engine
