#pragma once
// The evaluation cascade for one candidate: render -> compile (in the rank) -> sandboxed child that
// loads, verifies and times -> one EvalRecord. Whatever the candidate does, a record comes back.
#include <filesystem>
#include <string_view>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/mpi_eval/sandbox.hpp"

namespace kforge::mpi_eval {

struct CascadeOptions {
  bool keep_scratch = false;  // keep <scratch_root>/<candidate id> (sources, objects, files the candidate wrote)
};

// Never throws: infrastructure faults become a record with status infra_error and the reason as evidence.
// speedup is left NaN: the evaluator fills it from the task's "reference" baseline.
jobs::EvalRecord evaluate_candidate(kernels::Backend& backend, const jobs::Candidate& candidate,
                                    const jobs::TaskManifest& manifest, const std::filesystem::path& scratch_root,
                                    int rank, const CascadeOptions& options = {});

// The record of a candidate that was in flight each time its task died, `deaths` times (task_journal.hpp):
// status crash, not evaluated again.
jobs::EvalRecord blamed_record(const jobs::Candidate& candidate, const jobs::TaskManifest& manifest, int rank,
                               int deaths);

// The candidate's input seed: the task seed mixed with the candidate id, so that every candidate gets
// fresh inputs and a re-run of the task gets the same ones.
std::uint64_t candidate_seed(std::uint64_t task_seed, const std::string& candidate_id);

}  // namespace kforge::mpi_eval
