#pragma once
// What every engine backend (host, cuda) does the same way around its own step function: the sizes kInit must
// provide, serving the workload under the timing policy, and the verdict on what was served (docs/engines.md,
// "Serving": the spot check against the double reference, the physical ceiling, the SLO, the figures).
// A backend supplies only how one step runs (a candidate process, a GPU, ...) and its physical ceiling.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/model_weights.hpp"
#include "engine/serving_loop.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::engine {

// The model and workload of an engine campaign's settings; throws std::invalid_argument naming `who` when the
// settings carry no model.
const jobs::EngineSpec& engine_of(const jobs::EvalSettings& s, const char* who);

// What an engine must hold to serve the verification traces and the workload under `policy`.
// The reference baseline's batching policy, the same for every backend: every closed-loop request in flight, whole
// prompts (up to 256 tokens) per step, decodes first.
BatchPolicy baseline_policy();

struct EngineSizes {
  std::int64_t slots = 1;
  std::int64_t max_context = 1;
  std::int64_t most_sequences = 1;
  std::int64_t most_tokens = 1;
};
EngineSizes engine_sizes_for(const jobs::EngineSpec& e, const BatchPolicy& policy);

struct ServedRuns {
  std::vector<double> samples_ms;  // ms per output token of each full run
  std::vector<ServingResult> runs;
  std::string failure;  // "" or why a run stopped (the first such run ends the sampling)
};

// The request of the workload whose logits the spot check compares with the reference's, drawn from the
// evaluation's seed (the candidate cannot know it while it serves).
std::int64_t spot_checked_request(const jobs::EngineSpec& e, std::uint64_t seed);

// Serves the whole trace `warmup` times unmeasured, then as often as the timing policy allows (at least once),
// keeping the logits of request `keep` (spot_checked_request) in every timed run.
ServedRuns serve_repeatedly(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const BatchPolicy& policy,
                            const StepFn& step, std::int64_t keep = -1);

// The run whose sample is the median: its figures are the candidate's.
const ServingResult& median_run(const ServedRuns& r);

// How the backend's engine is judged beyond the served runs: its process's peak memory (MiB) and the physical
// ceiling of the hardware it ran on (flop/s).
struct VerdictContext {
  double peak_memory_mib = 0.0;
  double ceiling_flop_per_s = 0.0;
  std::string ceiling_note;  // appended to the evidence of a run beyond the ceiling ("" for the host's)
};

// time()'s verdict on a candidate's served runs: cheat_detected when a run failed while timed, or when the logits of
// the spot-checked request (spot_checked_request(e, seed), kept by serve_repeatedly) in the first timed run are
// outside the tolerance of the double reference's fed the same tokens, or a run beats the ceiling; slo_missed when a
// workload SLO is missed; ok otherwise. The figures (metrics) are those of the median run.
TimeResult judge_served(const ServedRuns& served, const jobs::EngineSpec& e, const Weights& weights, std::uint64_t seed,
                        const VerdictContext& v);

}  // namespace kforge::kernels::engine
