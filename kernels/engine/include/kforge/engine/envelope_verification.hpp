#pragma once
// verify()'s second trace (docs/engines.md, "Verification"): the serving envelope. The fixed script of
// engine_verification.hpp covers the ways an engine goes wrong on few requests; this trace makes the engine serve,
// under its own batching policy, the largest steps the workload will ever give it, and checks every answer:
// - every slot the workload uses, each holding a request from step 0 (the first wave) and then, served next on
//   the same engine, a second one (the second wave: slot reuse, shorter, so stale positions of the first lie
//   beyond the second's);
// - the most sequences per step (every slot's prompt in the first step, up to max_batch);
// - the largest prefill chunk and the longest context: request 0 has the longest prompt and the most outputs the
//   workload allows.
// Every generated token of every request is compared with the double reference fed the same tokens
// (served_checks.hpp), so an engine wrong only in a high slot, above some number of sequences per step, for long
// chunks or late positions is wrong_result before any timing.
#include <cstdint>
#include <string>
#include <vector>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_loop.hpp"
#include "kforge/engine/workload_trace.hpp"
#include "kforge/jobs/engine_spec.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::engine {

// The slots the workload keeps busy under `policy`: its concurrency (closed loop) or max_batch (open loop).
std::int64_t envelope_slots(const jobs::WorkloadSpec& workload, const BatchPolicy& policy);

// Wave 0 or 1 of the envelope for `workload` and `policy`, tokens from `seed`: one request per slot
// (envelope_slots), all in flight from step 0 (a closed loop at that concurrency). Wave 0: request 0 at the longest
// prompt and outputs, the others at the shortest; wave 1: half the shortest prompt and outputs (rounded up).
WorkloadTrace envelope_trace(const jobs::WorkloadSpec& workload, const BatchPolicy& policy, std::int64_t vocab,
                             std::uint64_t seed, int wave);

// The seeds of the envelope traces to serve: standard_case_seed(seed, 1), then those of the validation cases that
// are envelope traces ("engine_envelope=1 request=R seed=S"), in order.
std::vector<std::uint64_t> envelope_seeds(std::uint64_t seed, const std::vector<std::string>& validation_cases);

// Serves both waves of the envelope of every envelope seed through `step`, one after the other, and checks every
// request against `reference`: wrong_result with failed_case "engine_envelope=1 request=R seed=S" at the first
// disagreement (R counts both waves: the second wave's requests follow the first's), else ok with the largest
// errors of every logit compared.
VerifyResult verify_envelope(const jobs::EngineSpec& engine, const BatchPolicy& policy,
                             const ReferenceEngine& reference, std::uint64_t seed,
                             const std::vector<std::string>& validation_cases, const StepFn& step,
                             double tolerance = kLogitRelTolerance);

}  // namespace kforge::kernels::engine
