#pragma once
// The child half of run_sandboxed: everything between fork() and _exit().
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>

#include "kforge/mpi_eval/sandbox.hpp"

namespace kforge::mpi_eval {

struct ChildPipes {
  int output_fd = -1;  // write end; becomes the child's stdout and stderr
  int result_fd = -1;  // write end; the framed result goes here (moved to fd 3)
};

// Never returns: applies the limits, runs body() and writes its framed result, then _exit(0).
[[noreturn]] void run_child(const Limits& limits, const std::filesystem::path& scratch,
                            const std::function<std::string()>& body, ChildPipes pipes, pid_t parent);

}  // namespace kforge::mpi_eval
