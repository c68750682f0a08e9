#pragma once
// A seccomp filter that lets a process make threads but not processes, and not exec anything.
// RLIMIT_NPROC cannot do this: it is ignored for root, and root is what many batch nodes run tests as.
#include <string>

namespace kforge::mpi_eval {

// Sets PR_SET_NO_NEW_PRIVS and installs the filter on the calling thread (threads created later inherit it).
// fork, vfork, execve, execveat and clone without CLONE_THREAD fail with EPERM; clone3 fails with ENOSYS
// (its flags sit behind a pointer seccomp cannot read; glibc then falls back to clone, which is checked).
// Returns "" on success, else what failed (async-signal-safe callers: it allocates only on failure).
std::string install_process_ban();

}  // namespace kforge::mpi_eval
