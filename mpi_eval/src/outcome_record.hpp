#pragma once
// How a candidate's sandboxed child ended, as its record (docs/architecture.md, "Evaluation record"): the
// status, the times from the child's samples, the metrics and the evidence a person needs to see why.
#include <cstddef>
#include <string>
#include <string_view>

#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/mpi_eval/sandbox.hpp"

namespace kforge::mpi_eval {

// The child's body error text that marks the node, not the candidate, at fault (kernels::InfrastructureError) ...
inline constexpr std::string_view kInfrastructurePrefix = "infrastructure: ";
// ... and the one that says how the candidate's own process failed (kernels::CandidateFault): the evidence as is.
inline constexpr std::string_view kCandidatePrefix = "candidate: ";

// Sets r's status, times, metrics and evidence from how the candidate's child ended (`s`: the settings it ran under,
// for the limits an evidence names).
void apply_outcome(jobs::EvalRecord& r, const ChildOutcome& o, const jobs::EvalSettings& s);

// The last `bytes` of a text, marked "[...]" when cut; a number with `digits` decimals.
std::string tail_of(const std::string& text, std::size_t bytes);
std::string fixed(double v, int digits);

}  // namespace kforge::mpi_eval
