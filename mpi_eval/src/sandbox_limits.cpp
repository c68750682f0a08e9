#include "sandbox_limits.hpp"

namespace kforge::mpi_eval {

Limits limits_from(const jobs::EvalSettings& s) {
  Limits l;
  l.wall_s = s.wall_timeout_s;
  l.cpu_s = s.cpu_limit_s;
  l.memory_bytes = s.memory_limit_mb << 20;
  l.file_bytes = s.file_limit_mb << 20;
  l.forbid_processes = true;
  return l;
}

Limits limits_for(const jobs::EvalSettings& s, const kernels::Backend& backend) {
  Limits l = limits_from(s);
  l.limit_address_space = !backend.creates_device_context();
  // The host harness forks the candidate process, which bans processes (and far more) for itself.
  l.forbid_processes = !backend.runs_candidate_code_apart();
  return l;
}

}  // namespace kforge::mpi_eval
