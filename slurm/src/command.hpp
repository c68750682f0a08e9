#pragma once
// Runs a Slurm command-line tool and captures what it says.

#include <map>
#include <string>
#include <vector>

namespace kforge::slurm::detail {

struct CommandResult {
  int exit_code = 0;  // 128 + signal when the tool was killed
  std::string out;
  std::string err;
};

// Runs argv[0] (searched on PATH) with argv, without a shell, in the caller's environment plus
// extra_env. Throws SlurmError when the tool cannot be started at all.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& extra_env = {});

// "sbatch --parsable /tmp/x" — for error messages.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace kforge::slurm::detail
