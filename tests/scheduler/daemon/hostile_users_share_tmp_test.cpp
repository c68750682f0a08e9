// Attack class 4 of docs/isolation.md, "Users against the daemon": users' campaigns share no temporary folder or
// timing lock. kforged runs as the shipped systemd unit starts it (PrivateTmp=: one temporary folder for the daemon
// and everything it starts). The attacker holds the node's timing lock in that folder for good, and takes the
// names of the evaluation scratch folders (kforge-eval-PID) for the next 3000 pids. The victim's campaign still
// times its candidates and runs to its end.
#include <sys/file.h>

#include <regex>

#include "hostile_users.hpp"

using namespace kforge::test;

TEST_F(HostileUsers, NoUserStallsOrBreaksAnotherUsersRanks) {
  start_daemon(StartedBy::systemd_unit);
  const fs::path shared_tmp = tmp_.path() / "private-tmp";  // the unit's PrivateTmp (daemon_start.hpp)
  ASSERT_TRUE(fs::is_directory(shared_tmp));
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const fs::path lock = shared_tmp / (std::string("kforge-timing-") + host + ".lock");
  attack_in_background(attacker_, [&] {
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CREAT, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) return 3;
    ::pause();
    return 0;
  });
  // The scratch folder names of the next pids (wrapping at pid_max, as pids do), made the attacker's.
  const long pid_max = std::stol(slurp("/proc/sys/kernel/pid_max"));
  long pid = std::stol(slurp("/proc/sys/kernel/ns_last_pid"));
  std::ofstream names(home(attacker_) / "names");
  for (int i = 0; i < 3000; ++i) {
    pid = pid + 1 < pid_max ? pid + 1 : 300;  // the kernel wraps to 300
    names << (shared_tmp / ("kforge-eval-" + std::to_string(pid))).string() << "\n";
  }
  names.close();
  const Outcome taken = sh(attacker_, "xargs mkdir -p < " + (home(attacker_) / "names").string());
  ASSERT_EQ(taken.code, 0) << taken.err;
  ASSERT_TRUE(eventually([&] { return lock_held(lock); }, seconds(10)));

  submit(victim_, "victim");
  const std::string status = wait_done(victim_, "victim", seconds(90));
  // Its candidates were timed, and no rank lost its scratch folder (that would be infra_error records).
  EXPECT_EQ(status.find("\"best_ms\":null"), std::string::npos) << status;
  const Outcome report = as(victim_, {tool("kforge"), "report", dir_of(victim_, "victim").string(), "--json"});
  EXPECT_NE(report.out.find("\"infra_error\":0"), std::string::npos) << report.out;
  EXPECT_FALSE(std::regex_search(report.out, std::regex("\"infra_error\":[1-9]"))) << report.out;
  EXPECT_TRUE(lock_held(lock)) << "the attacker's lock was gone: the test proves nothing";
  stop_daemon();
}
