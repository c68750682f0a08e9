#pragma once
// How an agent's process is started: locally in its own process group (the default), or as a Slurm job on a
// CPU partition (SlurmExecutor, site slurm.agent_partition). Either way the agent sees the same command line,
// working directory and files, and the same time limit holds.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace kforge::scheduler {

struct AgentProcessResult {
  bool started = false;  // false: it could not be started (the reason is in `problem`)
  bool timed_out = false;
  int exit_code = -1;  // set when it exited on its own
  int signal = 0;      // set when a signal ended it
  double wall_s = 0.0;
  std::string problem;
  std::string where;  // where it ran, for the evidence ("" = locally), e.g. "Slurm job 42 on node1"
};

struct AgentProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no '/'
  std::filesystem::path cwd;
  std::filesystem::path stdout_file;
  std::filesystem::path stderr_file;
  double timeout_s = 60.0;
};

using AgentLauncher = std::function<AgentProcessResult(const AgentProcessSpec&)>;

}  // namespace kforge::scheduler
