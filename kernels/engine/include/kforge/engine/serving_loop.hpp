#pragma once
// The harness's serving loop (docs/engines.md, "Serving"): it serves a workload trace through an engine's step
// function under the genome's batching policy, decodes greedily, and keeps a virtual clock made only of the
// measured step times, so TTFT, inter-token latency and tokens/s describe the engine, not the harness.
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kforge/engine/engine_abi.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/workload_trace.hpp"
#include "kforge/jobs/genome.hpp"

namespace kforge::kernels::engine {

// One sequence of a step (kStep's buffers[0] row): start_position 0 starts a new request in the slot.
using StepSequence = SeqDesc;

// What the harness keeps of a step's rows (each sequence's last-token logits). `whole`: every logit (verification's
// traces, the server's sampler). Else, of each row, its greedy token and its values at `columns` and at that token
// (serve(): greedy decoding and the secret sample of served_checks.hpp).
struct RowWants {
  bool whole = true;
  std::span<const std::uint32_t> columns;  // sorted, distinct, each < vocab
};

// Rows reduced to what RowWants asks, `width` = columns + 1 floats per row.
struct PickedRows {
  std::vector<std::int32_t> greedy;  // per row: the argmax (lowest index on ties); -1: a logit that is not finite
  std::vector<float> kept;           // per row: its values at the columns, then at its greedy token
};

// The harness's reduction of whole rows (S * vocab logits), the specification the cuda engine's kf_pick meets on
// the device (cuda_engine_pick.hpp).
PickedRows pick_rows(std::span<const float> logits, std::int64_t vocab, std::span<const std::uint32_t> columns);

struct StepOutcome {
  // S * vocab: the last token's logits of each sequence, in the step's order. An engine may answer a step asked
  // for picked rows with them all the same (the host engine's kStep, whose process never sees RowWants).
  std::vector<float> logits;
  double ms = 0.0;  // the step's wall time, measured by the harness around the engine's call only
  std::array<double, kOperatorCount> op_seconds{};  // the engine's own breakdown of the step (evidence)
  // Or, for a step asked for picked rows, the rows reduced where they are computed, by harness code (the cuda
  // engine: kf_pick, a kernel of the harness's own module, never the candidate's).
  PickedRows picked;
};

using StepFn =
    std::function<StepOutcome(std::span<const StepSequence>, std::span<const std::int32_t>, const RowWants&)>;

// The harness-side batching policy (genome parameters max_batch, prefill_chunk, schedule).
struct BatchPolicy {
  std::int64_t max_batch = 1;       // sequences per step
  std::int64_t prefill_chunk = 16;  // prompt tokens of one sequence per step
  bool decode_first = true;         // schedule: decode_first (else prefill_first)
};

// The policy from a genome's max_batch, prefill_chunk and schedule; a key the genome lacks keeps its default
// above (an agent-written engine's genome may carry only these). Throws std::invalid_argument for a value outside
// the schema's choices (max_batch 1,2,4,8,16; prefill_chunk 16..256 in powers of 2; the two schedules).
BatchPolicy batch_policy_from_genome(const jobs::Genome& genome);

// Slots an engine must provide to serve `trace` under `policy`: the closed loop's concurrency, or max_batch in
// an open loop (arrived requests beyond that queue until a slot is free).
std::int64_t serving_slots(const WorkloadTrace& trace, const BatchPolicy& policy);
// The most sequences and tokens one step of the loop can hold (to size the engine's call mapping).
std::int64_t most_step_tokens(const BatchPolicy& policy);

// The sequences of one step under `policy`, as indices into the sequences in flight (in admission order;
// decoding[f]: sequence f has its whole prompt fed): up to max_batch of them, the schedule's kind first, each kind
// in admission order. The serving loop and kforge serve's batcher choose alike.
std::vector<std::size_t> choose_step(const std::vector<bool>& decoding, const BatchPolicy& policy);

// Appends one chosen sequence to a step: the next prefill_chunk tokens of its prompt while `fed` < its length, else
// its last generated token.
void append_to_step(std::int64_t slot, std::span<const std::int32_t> prompt, std::int64_t fed,
                    std::span<const std::int32_t> generated, const BatchPolicy& policy, std::vector<StepSequence>& seqs,
                    std::vector<std::int32_t>& tokens);

// Which logits serve() keeps of every row an engine answers (docs/isolation.md, "Engines"): the values at these
// columns of the vocabulary, drawn from a harness secret before the run, and the row's top value. Kept of every
// generated token of every request alike, so nothing the engine can observe (the time between its calls) tells
// which requests the harness will check after the run.
struct LogitSampler {
  std::vector<std::uint32_t> columns;  // sorted, distinct, each < vocab
};

struct ServingResult {
  double total_ms = 0.0;  // the virtual clock when the last request finished
  std::int64_t steps = 0;
  std::int64_t output_tokens = 0;
  double output_tokens_per_s = 0.0;
  double ttft_p50_ms = 0.0, ttft_p99_ms = 0.0;
  double itl_p50_ms = 0.0, itl_p99_ms = 0.0;       // 0 when no request generated a second token
  std::vector<std::vector<std::int32_t>> outputs;  // the generated tokens of each request, in trace order
  std::vector<std::int64_t> slot_of;               // the slot each request was served in
  std::array<double, kOperatorCount> op_share{};   // fraction of the engine's reported time per operator
  std::string failure;                             // "" or why serving stopped (logits not finite, wrong logits size)
  // The least memory traffic of the run (physical_floor.hpp): sequences summed over steps, and the cache positions
  // those sequences attend over (each sequence's last position + 1).
  std::int64_t sequence_steps = 0;
  std::int64_t positions_read = 0;
  std::int64_t tokens_fed = 0;  // prompt and generated tokens the engine was given (the flop ceiling's count)
  // With a sampler: per request, per generated token, the row's values at the sampler's columns and then its top
  // value (columns + 1 floats per token), copied outside the clock: what the engine answered while served.
  std::vector<std::vector<float>> sampled;
};

// Serves every request of `trace`; `step` is called once per step, asked for picked rows (the sampler's columns,
// none without one). Greedy: each next token is the argmax of the last logits (lowest index on ties). With
// `sampler`, keeps every generated token's row at its columns (sampled). Throws what `step` throws.
ServingResult serve(const WorkloadTrace& trace, const BatchPolicy& policy, std::int64_t vocab, const StepFn& step,
                    const LogitSampler* sampler = nullptr);

// Nearest-rank percentile (p in (0, 100]) of `values`; 0 for none.
double percentile(std::vector<double> values, double p);

}  // namespace kforge::kernels::engine
