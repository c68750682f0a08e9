#pragma once
// A child process in its own process group, with a time limit on the whole group (used by run_agent).
#include <filesystem>
#include <string>
#include <vector>

namespace kforge::scheduler::agent_process {

struct ProcessResult {
  bool started = false;  // false: fork failed (the reason is in `problem`)
  bool timed_out = false;
  int exit_code = -1;    // set when it exited on its own
  int signal = 0;        // set when a signal ended it
  double wall_s = 0.0;
  std::string problem;
};

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::filesystem::path cwd;
  std::filesystem::path stdout_file;
  std::filesystem::path stderr_file;
  double timeout_s = 60.0;
};

// Runs to completion or to the time limit, then kills whatever is left of its process group.
ProcessResult run_process_group(const ProcessSpec& spec);

// The last `max_bytes` of a file ("" when it cannot be read), cut at a line start when possible.
std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes);

}  // namespace kforge::scheduler::agent_process
