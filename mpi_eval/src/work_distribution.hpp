#pragma once
// Dynamic distribution of a task's candidates over the ranks of a communicator. Rank 0 hands out candidate
// indices on request; a worker's request carries the record of its previous candidate. Rank 0 evaluates
// too, on a helper thread that makes no MPI calls, so MPI_THREAD_FUNNELED is all this needs.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "kforge/jobs/record.hpp"

namespace kforge::mpi_eval {

// Evaluates candidate `index`; never throws for a candidate's failure.
using EvaluateFn = std::function<jobs::EvalRecord(std::size_t index)>;

struct DistributionPlan {
  MPI_Comm comm = MPI_COMM_WORLD;
  std::size_t candidate_count = 0;
  bool rank0_evaluates = true;  // false when the MPI library gives less than MPI_THREAD_FUNNELED and size > 1
  // Rank 0 only: records it already has (candidates blamed for earlier deaths of the task, or evaluated alone
  // first). They go into the result as they are and are never handed to any rank.
  std::map<std::size_t, jobs::EvalRecord> known;
};

// On rank 0: returns one record per candidate, in manifest order (nullopt where none arrived, which the
// caller treats as an infrastructure error). On other ranks: returns an empty vector once told to stop.
// Throws std::runtime_error when a worker's message cannot be read.
std::vector<std::optional<jobs::EvalRecord>> distribute(const DistributionPlan& plan, const EvaluateFn& evaluate);

}  // namespace kforge::mpi_eval
