#include "run_context.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace kforge::mpi_eval {
namespace {

std::optional<std::int64_t> env_int(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::int64_t v = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;  // not a number: treat as unset
  return v;
}

}  // namespace

SlurmIds slurm_ids_from_environment() {
  SlurmIds ids;
  if (auto job = env_int("SLURM_ARRAY_JOB_ID")) {
    ids.job_id = *job;
  } else if (auto plain = env_int("SLURM_JOB_ID")) {
    ids.job_id = *plain;
  }
  if (auto task = env_int("SLURM_ARRAY_TASK_ID")) ids.array_task = static_cast<std::int32_t>(*task);
  return ids;
}

void stamp_place(jobs::EvalRecord& r, int rank) {
  static const std::string host = jobs::host_name();
  const SlurmIds ids = slurm_ids_from_environment();
  r.host = host;
  r.slurm_job_id = ids.job_id;
  r.slurm_array_task = ids.array_task;
  r.rank = rank;
}

}  // namespace kforge::mpi_eval
