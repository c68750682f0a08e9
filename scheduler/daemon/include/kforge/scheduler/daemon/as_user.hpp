#pragma once
// A user's files are touched only by a process that IS that user (docs/isolation.md, "Users against the daemon").
// kforged runs as root; a user owns everything below SPOOL/campaigns/USER and may turn any of it into a symlink,
// a FIFO or a huge file. So every read and write there happens in a helper process: forked, it drops all of root's
// groups and becomes the user for good (become_for_good: the user's own groups, gid, uid, checked), does its work
// and sends its answer back through a pipe. The caller waits a bounded time and kills a helper that overruns.
// Whatever a user plants costs that user's helper, never the daemon, and reaches nothing the user could not reach.
// (setfsuid, which this replaces, left root's supplementary groups in force and ran in the daemon itself.)
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "kforge/scheduler/daemon/identity.hpp"

namespace kforge::scheduler::daemon {

// The work failed (what() is what it threw), the helper could not become the user, or it gave no answer in time.
class HelperFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs `work` in a child process, as `who` when `switch_user` (the caller is root) and as the caller otherwise, and
// returns what work() returned. The child is not dumpable (the user it became cannot ptrace it and take the
// caller's descriptors) and dies with the caller. Throws HelperFailed; a helper without an answer within `limit`
// is killed ("no answer within 10 s (killed)"). Never call it between fork and exec.
std::string run_as(const Account& who, bool switch_user, std::chrono::milliseconds limit,
                   const std::function<std::string()>& work);

}  // namespace kforge::scheduler::daemon
