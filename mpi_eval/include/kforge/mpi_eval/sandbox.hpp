#pragma once
// Runs untrusted work in a forked child with limits; whatever the child does costs the child only.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace kforge::mpi_eval {

struct Limits {
  double wall_s = 30.0;                   // SIGKILL after this (the whole process group)
  double cpu_s = 60.0;                    // RLIMIT_CPU
  std::int64_t memory_bytes = 2LL << 30;  // RLIMIT_AS, on top of what the child inherits
  std::int64_t file_bytes = 64LL << 20;   // RLIMIT_FSIZE
  bool forbid_processes = true;           // seccomp: fork/vfork/clone of processes and execve fail with EPERM
  // Off for children that create a CUDA context: the driver reserves virtual address space for all device
  // memory and more (tens to hundreds of GiB), so any address-space cap makes cuInit or the context fail. Such a
  // child runs only the harness's host code; its candidate's memory is limited by the backend (cuda: the
  // module's static device memory against memory_limit_mb, kernels/cuda/src/module_checks.hpp).
  bool limit_address_space = true;
};

enum class ChildEnd { completed, exited_early, signalled, timed_out, bad_message };

struct ChildOutcome {
  ChildEnd end = ChildEnd::bad_message;
  int exit_code = -1;       // when it exited
  int signal = 0;           // when it was killed by a signal
  std::string payload;      // what body() returned, when completed
  std::string output_tail;  // last few KiB of the child's stdout+stderr (evidence)
  double wall_ms = 0.0;
  std::string describe() const;  // one line a person understands: "killed by SIGSEGV", "timed out after 5 s"
};

// Forks; the child chdirs into scratch, applies limits, runs body() and sends its result to the parent
// through a pipe framed with a length and a checksum. The parent waits up to limits.wall_s.
ChildOutcome run_sandboxed(const Limits& limits, const std::filesystem::path& scratch,
                           const std::function<std::string()>& body);

}  // namespace kforge::mpi_eval
