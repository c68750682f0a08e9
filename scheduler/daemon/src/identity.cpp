#include "kforge/scheduler/daemon/identity.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace kforge::scheduler::daemon {

namespace {

Account from_passwd(const passwd& pw) {
  Account a;
  a.uid = pw.pw_uid;
  a.gid = pw.pw_gid;
  a.name = pw.pw_name;
  a.home = pw.pw_dir ? pw.pw_dir : "/";
  int n = 64;
  for (int attempt = 0; attempt < 8; ++attempt) {
    a.groups.assign(static_cast<size_t>(n), 0);
    int count = n;
    if (::getgrouplist(pw.pw_name, pw.pw_gid, a.groups.data(), &count) >= 0) {
      a.groups.resize(static_cast<size_t>(count));
      return a;
    }
    n = std::max(count, n * 2);
  }
  a.groups = {pw.pw_gid};  // a user in thousands of groups: keep the primary one
  return a;
}

}  // namespace

bool Account::in_group(gid_t g) const { return std::find(groups.begin(), groups.end(), g) != groups.end(); }

Account account_by_uid(uid_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) {
    throw std::runtime_error("no account with uid " + std::to_string(uid));
  }
  return from_passwd(pw);
}

Account account_by_name(const std::string& name) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found) {
    throw std::runtime_error("no account named '" + name + "'");
  }
  return from_passwd(pw);
}

gid_t group_by_name(const std::string& name) {
  group gr{};
  group* found = nullptr;
  std::vector<char> buf(65536);
  if (::getgrnam_r(name.c_str(), &gr, buf.data(), buf.size(), &found) != 0 || !found) {
    throw std::runtime_error("no group named '" + name + "'");
  }
  return gr.gr_gid;
}

std::string describe(const Account& a) { return a.name + " (uid " + std::to_string(a.uid) + ")"; }

bool can_switch_users() { return ::geteuid() == 0; }

const char* become_for_good(const Account& who, bool privileged) {
  if (!privileged) return nullptr;
  if (::setgroups(who.groups.size(), who.groups.data()) != 0) return "setgroups failed";
  if (::setresgid(who.gid, who.gid, who.gid) != 0) return "setresgid failed";
  if (::setresuid(who.uid, who.uid, who.uid) != 0) return "setresuid failed";
  uid_t ru = 0, eu = 0, su = 0;
  gid_t rg = 0, eg = 0, sg = 0;
  if (::getresuid(&ru, &eu, &su) != 0 || ru != who.uid || eu != who.uid || su != who.uid) return "uid check failed";
  if (::getresgid(&rg, &eg, &sg) != 0 || rg != who.gid || eg != who.gid || sg != who.gid) return "gid check failed";
  // No group beyond the user's own may be left (the kernel keeps them sorted: compare as sets).
  gid_t groups[1024];
  const int n = ::getgroups(1024, groups);
  if (n < 0 && who.groups.size() <= 1024) return "supplementary groups check failed";
  for (int i = 0; i < n; ++i) {
    if (!who.in_group(groups[i])) return "a group that is not the user's was left in force";
  }
  if (who.uid != 0 && ::setuid(0) == 0) return "root could be regained after the switch";
  return nullptr;
}

}  // namespace kforge::scheduler::daemon
