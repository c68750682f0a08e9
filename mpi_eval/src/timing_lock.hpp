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
#include <optional>
#include <string>
#include <string_view>

#include "kforge/kernels/backend.hpp"

namespace kforge::mpi_eval {

// $KFORGE_TIMING_LOCK when set and not empty, else <system temp dir>/kforge-timing-<host name>.lock.
std::filesystem::path timing_lock_path();
// The lock of the GPUs this process sees: the node's path above with "-gpu-<CUDA_VISIBLE_DEVICES>" (or "-gpu-all")
// before its extension, so that ranks that see the same GPUs share it and ranks on GPUs of their own do not.
std::filesystem::path device_timing_lock_path();

// Which lock a backend's child runs under, if any: the node's when its timing runs on the host's cores and is
// disturbed by another timing there (kernels::Backend::times_on_shared_cores: the host backend); its GPUs' when it
// times on a device (creates_device_context: the cuda backends), where two ranks given one GPU would otherwise time
// on it at once (one rank per GPU, as the Slurm executor checks, never waits on it); none for replay, which answers
// from a measured space.
std::optional<std::filesystem::path> timing_lock_for(const kernels::Backend& backend);

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
