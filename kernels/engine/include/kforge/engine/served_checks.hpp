#pragma once
// What keeps an engine honest while it is served and timed (docs/isolation.md, "Engines"). An engine sees whole
// traces and keeps state, so a served run is only worth its time when the engine could not have known the trace
// and cannot know which of its answers will be checked:
// - every run serves a fresh trace (fresh_trace) drawn from a secret of the harness (harness_secret): new tokens,
//   and the workload's lengths dealt to its requests in a new order: no history an engine saw before comes back;
// - serve() keeps the same sample of every logit row (LogitSampler, its columns drawn from a secret), so the time
//   between an engine's calls does not depend on which requests will be checked;
// - after the run, a secret drawn only then picks one request of every slot (requests_to_check), and each is
//   compared, every generated token, with the double reference fed the same tokens (check_requests).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_loop.hpp"
#include "kforge/engine/workload_trace.hpp"

namespace kforge::kernels::engine {

// 64 bits from the kernel's random source (getrandom): nothing outside the harness's memory can derive them, not
// from the campaign, the candidate's source or the archive. Throws InfrastructureError when there is none.
std::uint64_t harness_secret();

// Columns serve() keeps of every row: every column up to this many, else this many drawn without repetition.
inline constexpr std::int64_t kSampledColumns = 1024;
LogitSampler draw_sampler(std::int64_t vocab, std::uint64_t secret);

// A fresh trace of the workload: every prompt token new and the requests' lengths (prompt, outputs) dealt anew, both
// drawn from `secret`; the multiset of lengths and the arrival times are those of make_trace(workload), so every
// run of every candidate does the same work and their times compare like with like (drawing the lengths anew too
// made one honest engine's runs differ by 4-30% instead of 1-7%, measured on the engine examples).
WorkloadTrace fresh_trace(const jobs::WorkloadSpec& workload, std::int64_t vocab, std::uint64_t secret);

// One request of every slot that served any, each drawn from `secret` among the requests of its slot; in request
// order. A defect confined to one slot is in every check's reach: each run checks every slot.
std::vector<std::size_t> requests_to_check(const ServingResult& run, std::uint64_t secret);

struct CheckOutcome {
  std::string wrong;           // "" when every checked row agrees; else the first disagreement, for the evidence
  std::int64_t request = -1;   // the request of that disagreement
  double max_abs_error = 0.0;  // over every sampled logit compared
  double max_rel_error = 0.0;  // the same, relative to its row's scale (engine_tolerance.hpp)
  std::int64_t rows = 0;       // logit rows compared
};

// Compares what `run` kept of every generated token of the requests `which` (served from `trace` with
// `sampler`) with the reference's logits for the same histories (ReferenceEngine::teacher_forced on the prompt and
// the tokens the engine generated): each sampled logit and the row's top value within the tolerance of
// engine_tolerance.hpp (`tolerance`: the engine's contract's), and each token a greedy choice of the reference (a
// near tie allowed). `where` begins the evidence ("timed run 2").
CheckOutcome check_requests(const ReferenceEngine& reference, const WorkloadTrace& trace, const ServingResult& run,
                            const LogitSampler& sampler, std::span<const std::size_t> which, const std::string& where,
                            double tolerance = kLogitRelTolerance);

}  // namespace kforge::kernels::engine
