#pragma once
// kforge-eval's work on every rank: time the baselines (rank 0), evaluate the task's candidates with
// dynamic distribution, assemble and write the shard (rank 0).
#include <filesystem>
#include <string>

#include "kforge/jobs/manifest.hpp"

namespace kforge::mpi_eval {

struct EvaluatorOptions {
  std::filesystem::path manifest_path;
  std::filesystem::path scratch;  // empty: a private folder under the system temp directory
  bool keep_scratch = false;
  bool rank0_evaluates = true;  // false when MPI gives less than MPI_THREAD_FUNNELED
  std::string version;          // written into the shard's provenance
};

// Collective over MPI_COMM_WORLD. Returns the exit code of this rank (kforge/jobs/exit_codes.hpp); throws
// std::exception for infrastructure faults on the way (the caller aborts the job: other ranks may wait on it).
int run_evaluator(const EvaluatorOptions& options, const jobs::TaskManifest& manifest);

}  // namespace kforge::mpi_eval
