#pragma once
// Who a request comes from and whom a campaign's processes run as (docs/daemon.md, "Who runs what").
//
// A kforged started as root serves many users: every campaign belongs to the user who submitted it, its
// `kforge run` child (and so its compiler, agents, candidates and Slurm jobs) runs as that user, and the daemon
// touches a user's campaign folder only through a helper process that has become that user (as_user.hpp), so
// nothing a user plants in their folder can make root read or write anything the user could not. A kforged
// started as an ordinary user serves that user only (single-user mode).
#include <sys/types.h>

#include <string>
#include <vector>

namespace kforge::scheduler::daemon {

// A local account, resolved once in the daemon (NSS lookups are not safe between fork and exec).
struct Account {
  uid_t uid = 0;
  gid_t gid = 0;  // primary group
  std::string name;
  std::string home;
  std::vector<gid_t> groups;  // every group, the primary one included (getgrouplist)
  bool in_group(gid_t g) const;
};

// Throw std::runtime_error ("no account with uid 1234") when NSS does not know the account.
Account account_by_uid(uid_t uid);
Account account_by_name(const std::string& name);
// The gid of a group name; throws std::runtime_error when there is no such group.
gid_t group_by_name(const std::string& name);
std::string describe(const Account& a);  // "alice (uid 1001)"

// True when this process may act as other users (it is root): kforged's multi-user mode.
bool can_switch_users();

// Between fork and exec (async-signal-safe): become `who` for good - supplementary groups (the user's own only:
// none of root's stays), gid, uid - and check it took: real, effective and saved ids are the user's, the groups
// are the user's, and setuid(0) fails. Returns nullptr on success, else
// what failed (the caller writes it and exits). A no-op returning nullptr when this process cannot switch.
const char* become_for_good(const Account& who, bool privileged);

}  // namespace kforge::scheduler::daemon
