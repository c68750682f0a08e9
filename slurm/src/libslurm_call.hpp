#pragma once
// KFORGE_SLURM_CALL(call): run one libslurm call that returns SLURM_SUCCESS or SLURM_ERROR and, on error,
// throw a SlurmError naming the call, where it was made, and Slurm's slurm_strerror text and errno.

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <string>

#include "kforge/slurm/slurm_error.hpp"

namespace kforge::slurm::detail {

inline void check_slurm_call(int rc, const char* call_text, const char* file, int line) {
  if (rc == SLURM_SUCCESS) return;
  const int slurm_errno = slurm_get_errno();
  const char* message = slurm_strerror(slurm_errno);
  throw SlurmError(std::string(call_text) + " at " + file + ":" + std::to_string(line),
                   message != nullptr ? message : "unknown Slurm error", slurm_errno);
}

}  // namespace kforge::slurm::detail

#define KFORGE_SLURM_CALL(call) ::kforge::slurm::detail::check_slurm_call((call), #call, __FILE__, __LINE__)
