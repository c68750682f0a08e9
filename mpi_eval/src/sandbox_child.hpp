#pragma once
// The child half of run_sandboxed: everything between fork() and _exit().
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>

#include "frame.hpp"
#include "kforge/mpi_eval/sandbox.hpp"

namespace kforge::mpi_eval {

struct ChildPipes {
  int output_fd = -1;  // write end; becomes the child's stdout and stderr
  int result_fd = -1;  // write end; the framed result goes here (moved to fd 3)
};

// Never returns: applies the limits, runs body() and writes its result framed with `key`, then _exit(0).
// `key` is moved into a region that candidate processes wipe, and the caller's copy is zeroed.
[[noreturn]] void run_child(const Limits& limits, const std::filesystem::path& scratch,
                            const std::function<std::string()>& body, ChildPipes pipes, pid_t parent, FrameKey& key);

}  // namespace kforge::mpi_eval
