#pragma once
// The one child process per campaign: `kforge run` on the campaign's directory in the spool, which is exactly
// the tested foreground resume path.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/scheduler/daemon/identity.hpp"

namespace kforge::scheduler::daemon {

// Exit codes of a child that never reached its program; the reason is on its report pipe.
inline constexpr int kChildSetupFailed = 125;     // its log, TMPDIR or working folder could not be used
inline constexpr int kChildIdentityFailed = 126;  // it could not become the campaign's user
inline constexpr int kChildExecFailed = 127;

struct StartedChild {
  pid_t pid = -1;
  int report_fd = -1;  // read end of the child's report pipe: what it said before exec (take_child_report)
};

// Starts argv with stdin from /dev/null and stdout + stderr appended to `log`, in its own process group (a
// Ctrl-C at the daemon's terminal reaches the daemon, which then stops its children itself), with every signal
// unblocked and PR_SET_PDEATHSIG(SIGTERM), so a daemon that dies (kill -9 included) leaves no child running.
// With `switch_user` (kforged as root) the child becomes `user` for good before anything else (become_for_good:
// groups, gid, uid, checked), so the log is opened and the program run as that user; its working directory is the
// log's folder, HOME/USER/LOGNAME are the user's, its umask `mask`; with a `tmpdir` (multi-user) it creates that
// folder (0700, its own) and gets it as TMPDIR, without the daemon's KFORGE_TIMING_LOCK, so its ranks' timing
// lock and scratch folders are out of other users' reach. The log is opened O_NOFOLLOW|O_NONBLOCK and must be a
// regular file: a child whose log cannot be opened does not start (exit kChildSetupFailed) rather than write to
// the daemon's own stderr, and no descriptor of the daemon but 0-2 (replaced) reaches the program. Throws
// std::runtime_error when fork fails.
StartedChild spawn_child(const std::vector<std::string>& argv, const std::filesystem::path& log,
                         const std::filesystem::path& tmpdir, const Account& user, bool switch_user, mode_t mask);
// What the child said on its report pipe before it exec'd or gave up ("" once it reached its program); closes the
// descriptor. Call it after the child ended.
std::string take_child_report(int report_fd);

// "exited with code 3", "killed by signal Terminated".
std::string describe_wait_status(int status);

// The argv of the child driving campaign directory `dir`:
//   KFORGE run DIR/campaign.yaml --site DIR/site.yaml --out DIR
std::vector<std::string> kforge_run_command(const std::filesystem::path& kforge_binary,
                                            const std::filesystem::path& dir);

// kforge beside the running kforged, or $KFORGE_BIN when set. Throws std::runtime_error when it does not exist.
std::filesystem::path locate_kforge_binary();

}  // namespace kforge::scheduler::daemon
