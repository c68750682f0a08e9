#pragma once
// Where and when an evaluation runs: host name, Slurm ids, timestamps. Filled into every record.
#include <cstdint>
#include <string>

#include "kforge/jobs/record.hpp"

namespace kforge::mpi_eval {

struct SlurmIds {
  std::int64_t job_id = -1;      // SLURM_ARRAY_JOB_ID, else SLURM_JOB_ID
  std::int32_t array_task = -1;  // SLURM_ARRAY_TASK_ID
};
SlurmIds slurm_ids_from_environment();

// host, slurm ids and rank of a record.
void stamp_place(jobs::EvalRecord& r, int rank);

}  // namespace kforge::mpi_eval
