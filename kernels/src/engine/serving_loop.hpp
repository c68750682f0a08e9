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

#include "engine/engine_abi.hpp"
#include "engine/reference_engine.hpp"
#include "engine/workload_trace.hpp"
#include "kforge/jobs/genome.hpp"

namespace kforge::kernels::engine {

// One sequence of a step (kStep's buffers[0] row): start_position 0 starts a new request in the slot.
using StepSequence = SeqDesc;

struct StepOutcome {
  std::vector<float> logits;  // S * vocab: the last token's logits of each sequence, in the step's order
  double ms = 0.0;            // the step's wall time, measured by the harness around the engine's call only
  std::array<double, kOperatorCount> op_seconds{};  // the engine's own breakdown of the step (evidence)
};

using StepFn = std::function<StepOutcome(std::span<const StepSequence>, std::span<const std::int32_t>)>;

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

struct ServingResult {
  double total_ms = 0.0;  // the virtual clock when the last request finished
  std::int64_t steps = 0;
  std::int64_t output_tokens = 0;
  double output_tokens_per_s = 0.0;
  double ttft_p50_ms = 0.0, ttft_p99_ms = 0.0;
  double itl_p50_ms = 0.0, itl_p99_ms = 0.0;       // 0 when no request generated a second token
  std::vector<std::vector<std::int32_t>> outputs;  // the generated tokens of each request, in trace order
  std::array<double, kOperatorCount> op_share{};   // fraction of the engine's reported time per operator
  std::string failure;                             // "" or why serving stopped (logits not finite, wrong logits size)
  // The logit row behind each generated token of the request serve() was asked to keep (empty otherwise): what the
  // engine answered under the clock, for the spot check against the double reference (serving_verdict.hpp).
  std::vector<std::vector<float>> kept_logits;
};

// Serves every request of `trace`; `step` is called once per step. Greedy: each next token is the argmax of the
// last logits (lowest index on ties). Keeps the logit rows of request `keep_logits_of` (none when negative), copied
// outside the clock. Throws what `step` throws.
ServingResult serve(const WorkloadTrace& trace, const BatchPolicy& policy, std::int64_t vocab, const StepFn& step,
                    std::int64_t keep_logits_of = -1);

// Nearest-rank percentile (p in (0, 100]) of `values`; 0 for none.
double percentile(std::vector<double> values, double p);

}  // namespace kforge::kernels::engine
