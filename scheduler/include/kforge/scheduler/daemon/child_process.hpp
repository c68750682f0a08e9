#pragma once
// The one child process per campaign: `kforge run` on the campaign's directory in the spool, which is exactly
// the tested foreground resume path.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace kforge::scheduler::daemon {

// Starts argv with stdin from /dev/null and stdout + stderr appended to `log`, in its own process group (a
// Ctrl-C at the daemon's terminal reaches the daemon, which then stops its children itself), with every signal
// unblocked and PR_SET_PDEATHSIG(SIGTERM), so a daemon that dies (kill -9 included) leaves no child running.
// Returns the pid; throws std::runtime_error when fork fails. An exec failure is exit code 127, reason in the log.
pid_t spawn_child(const std::vector<std::string>& argv, const std::filesystem::path& log);

// "exited with code 3", "killed by signal Terminated".
std::string describe_wait_status(int status);

// The argv of the child driving campaign directory `dir`:
//   KFORGE run DIR/campaign.yaml --site DIR/site.yaml --out DIR
std::vector<std::string> kforge_run_command(const std::filesystem::path& kforge_binary,
                                            const std::filesystem::path& dir);

// kforge beside the running kforged, or $KFORGE_BIN when set. Throws std::runtime_error when it does not exist.
std::filesystem::path locate_kforge_binary();

// The last non-empty line of a log file ("" when there is none): the child's final error message.
std::string last_line_of(const std::filesystem::path& log);

}  // namespace kforge::scheduler::daemon
