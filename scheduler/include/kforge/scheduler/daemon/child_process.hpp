#pragma once
// The one child process per campaign: `kforge run` on the campaign's directory in the spool, which is exactly
// the tested foreground resume path.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/scheduler/daemon/identity.hpp"

namespace kforge::scheduler::daemon {

// Starts argv with stdin from /dev/null and stdout + stderr appended to `log`, in its own process group (a
// Ctrl-C at the daemon's terminal reaches the daemon, which then stops its children itself), with every signal
// unblocked and PR_SET_PDEATHSIG(SIGTERM), so a daemon that dies (kill -9 included) leaves no child running.
// With `switch_user` (kforged as root) the child becomes `user` for good before anything else (become_for_good:
// groups, gid, uid, checked), so the log is opened and the program run as that user; its working directory is the
// log's folder, HOME/USER/LOGNAME are the user's, its umask `mask`. Returns the pid; throws std::runtime_error when
// fork fails. An exec failure is exit code 127, a failed identity switch 126; the reason goes to the log (or, when
// the switch failed, to the daemon's stderr).
pid_t spawn_child(const std::vector<std::string>& argv, const std::filesystem::path& log, const Account& user,
                  bool switch_user, mode_t mask);

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
