#pragma once
// Runs a trusted tool (the host compiler) as a child process: no shell, output captured, a wall-clock limit.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kforge::kernels::detail {

struct ProcessResult {
  int exit_code = -1;      // exit status when the process exited normally, else -1
  int signal = 0;          // the signal that ended it, 0 when it exited
  bool timed_out = false;  // killed (with its whole process group) because the limit passed
  std::string output;      // stdout and stderr interleaved; the last max_output bytes when longer
  double wall_ms = 0.0;
  bool succeeded() const { return exit_code == 0 && signal == 0 && !timed_out; }
};

// argv[0] is looked up on PATH (execvp). The child gets its own process group, so a timeout also kills
// the tools it started (cc1plus, as, ld). Throws std::system_error when the pipe or fork fails; a program
// that cannot be executed is reported as exit code 127 with the reason in the output.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          std::chrono::milliseconds timeout, std::size_t max_output = 64 * 1024);

// Splits a flag string on whitespace ("-O3  -march=native" -> {"-O3", "-march=native"}); no quoting rules.
std::vector<std::string> split_on_whitespace(const std::string& text);

}  // namespace kforge::kernels::detail
