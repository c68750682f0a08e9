#pragma once
// What every engine backend (host, cuda) does the same way around its own step function: the sizes kInit must
// provide, verification, serving the workload under the timing policy, and the verdict on what was served
// (docs/engines.md, "Serving": the checks against the double reference after every run, the physical floor and
// ceiling, the SLO, the figures).
// A backend supplies only how one step runs (a candidate process, a GPU, ...) and its physical ceiling.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_loop.hpp"
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

// A backend's engine made anew for one run: the previous instance gone (its process, module and device state),
// a fresh one initialised for engine_sizes_for; returns its step function. Nothing an engine kept from
// verification or an earlier run reaches the next run (docs/isolation.md, "Engines").
using FreshEngine = std::function<StepFn()>;

struct ServedRuns {
  std::vector<double> samples_ms;   // ms per output token of each timed run
  std::vector<ServingResult> runs;  // the timed runs (what was kept of their logits dropped once checked)
  std::string failure;  // "" or why a run stopped or failed its check after the run (the first ends the sampling)
  std::int64_t checked_runs = 0, checked_requests = 0;  // compared with the reference, warm-ups included
  double max_rel_error = 0.0;                           // over every logit compared after the runs
  // What keeping the engine honest cost beside serving: the checks after the runs, and starting a fresh engine
  // for every run (wall ms).
  double check_ms = 0.0, fresh_engine_ms = 0.0;
};

// verify() of an engine backend: the script traces through the engine's logits (engine_verification.hpp), then the
// serving envelope under `policy` through its step function (envelope_verification.hpp). The first failure is the
// verdict; else ok with the largest errors of both. `envelope_ms`, when given, gets the envelope's wall ms.
// `tolerance`: the engine's contract's (engine_tolerance.hpp, logit_tolerance), in both and in serve_repeatedly.
VerifyResult verify_served_engine(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const BatchPolicy& policy,
                                  const Weights& weights, const ReferenceEngine& reference, std::uint64_t seed,
                                  const StepFn& step, double* envelope_ms = nullptr,
                                  double tolerance = kLogitRelTolerance);

// Serves `warmup` runs and then timed runs as the timing policy allows (at least one; its time cap counts serving
// only). Every run is a fresh trace (fresh_trace, from harness_secret) on a fresh engine (`fresh`). With
// `reference` (candidates; baselines are kforge's own code), every run keeps a secret sample of every logit row
// and, after the run, one request of every slot, picked by a secret drawn then, is compared with the reference
// (served_checks.hpp); the first disagreement ends the sampling as `failure`.
ServedRuns serve_repeatedly(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const BatchPolicy& policy,
                            const FreshEngine& fresh, const ReferenceEngine* reference = nullptr,
                            double tolerance = kLogitRelTolerance);

// The run whose sample is the median: its figures are the candidate's.
const ServingResult& median_run(const ServedRuns& r);

// How the backend's engine is judged beyond the served runs: its processes' peak memory (MiB), the physical
// ceiling of the hardware it ran on (flop/s), and the node's measured memory bandwidth (physical_floor.hpp;
// 0 where none can be measured: the fake GPU of the tests).
struct VerdictContext {
  double peak_memory_mib = 0.0;
  double ceiling_flop_per_s = 0.0;
  std::string ceiling_note;  // appended to the evidence of a run beyond the ceiling ("" for the host's)
  double memory_bytes_per_s = 0.0;
  double envelope_ms = 0.0;  // what verify()'s serving envelope took (the envelope_ms figure)
  // What the engine declares of its activations: with bf16 its KV cache may hold bf16, which the floor counts.
  ActivationPrecision activations = ActivationPrecision::fp32;
};

// time()'s verdict on a candidate's served runs: cheat_detected when a run failed or a check after a run found a
// logit or token that disagrees with the reference (right in verify(), wrong under the clock), or a run is faster
// than its physical floor (physical_floor.hpp) or the flop ceiling; slo_missed when a workload SLO is missed; ok
// otherwise. The figures (metrics) are those of the median run.
TimeResult judge_served(const ServedRuns& served, const jobs::EngineSpec& e, const Weights& weights,
                        const VerdictContext& v);

}  // namespace kforge::kernels::engine
