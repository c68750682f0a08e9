#pragma once
// The seccomp filters of the evaluation sandbox (docs/isolation.md), built by one small BPF program builder.
// Each sets PR_SET_NO_NEW_PRIVS and returns "" on success, else what failed.
#include <sys/types.h>

#include <string>

namespace kforge::kernels {

// The harness child of a backend that runs no candidate host code (cuda, replay): fork, vfork, execve and clone
// of a new process fail with EPERM; threads stay allowed.
std::string install_process_ban();

// A candidate process: the process ban, and no sockets, tracing, io_uring, namespaces, keyrings, or signals and
// scheduling changes aimed at anything but itself (`self`, its own pid).
std::string install_candidate_filter(pid_t self);

}  // namespace kforge::kernels
