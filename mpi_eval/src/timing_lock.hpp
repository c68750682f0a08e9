#pragma once
// The node-wide timing lock: while one harness process times a candidate (or the baselines) on the CPU, no
// other kforge-eval rank or task on the same machine does, so two timed kernels never share the cores.
//
// An flock(2) on a file named after the host. The rank (the trusted harness) takes it before it forks the
// sandboxed child and drops it after the child ended; the child closes its inherited copy before the candidate's
// code runs (sandbox_child.cpp closes every descriptor above 3), so a candidate can neither hold nor release it.
// A child that hangs is killed at its wall limit, and the kernel drops an flock when the process holding it
// dies, so a hung candidate or a killed rank stalls the node for at most one candidate's wall time.
#include <filesystem>
#include <string>
#include <string_view>

namespace kforge::mpi_eval {

// $KFORGE_TIMING_LOCK when set and not empty, else <system temp dir>/kforge-timing-<host name>.lock.
std::filesystem::path timing_lock_path();

// Which backends take it: those whose timing runs on the host's cores and is disturbed by another timing there
// (kernels::Backend::times_on_shared_cores: the host backend). A cuda rank owns its GPU (one rank per GPU) and
// replay answers from a measured space: neither takes the lock.

// Holds the lock from construction (which blocks until it is free) to destruction. Never throws: when the file
// cannot be opened or locked, problem() says why and the caller times without the lock.
class TimingLock {
 public:
  explicit TimingLock(const std::filesystem::path& path);
  ~TimingLock();
  TimingLock(const TimingLock&) = delete;
  TimingLock& operator=(const TimingLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& problem() const { return problem_; }  // empty while held

 private:
  int fd_ = -1;
  std::string problem_;
};

}  // namespace kforge::mpi_eval
