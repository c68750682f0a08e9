#pragma once
// The stage of the attacks on kforged by hostile local users (docs/isolation.md, "Users against the daemon"): the
// real kforged binary as root, started as an administrator starts it (from a root shell, or the way the shipped
// systemd unit does: its ExecStart line, UMask, capability bounding set, NoNewPrivileges, a private temporary
// folder), a victim whose campaign must keep running through every attack, an attacker and an admin-group member,
// all real accounts created for the test (useradd), and the attacks run as those users' own processes.
#include <gtest/gtest.h>

#include <sys/prctl.h>

#include <csignal>
#include <functional>

#include "daemon_start.hpp"
#include "process_helpers.hpp"

namespace kforge::test {

class HostileUsers : public ::testing::Test {
 protected:
  void SetUp() override {
    open_to_every_user(tmp_.path());
    bin_ = bin_dir_for_users(tmp_.path());
    for (const TestUser* u : {&victim_, &attacker_, &admin_}) {
      fs::create_directories(home(*u));
      ASSERT_EQ(::chown(home(*u).c_str(), u->uid(), u->as().gid), 0);
    }
  }
  void TearDown() override {
    for (const pid_t pid : helpers_) {  // attack processes this test started (flock holders, ...)
      ::kill(pid, SIGKILL);
      wait_exit(pid);
    }
    if (daemon_ > 0) stop_daemon();
  }

  fs::path spool() const { return tmp_.path() / "spool"; }
  fs::path home(const TestUser& u) const { return tmp_.path() / ("home-" + u.name()); }
  fs::path dir_of(const TestUser& u, const std::string& name) const { return spool() / "campaigns" / u.name() / name; }
  std::string tool(const std::string& name) const { return (bin_ / name).string(); }
  fs::path daemon_log_file() const { return tmp_.path() / "kforged.log"; }
  std::string daemon_log() const { return slurp(daemon_log_file()); }

  // kforged as root, as `how` starts it, on this test's spool; its stderr in a file only root may read (as the
  // journal is); with `inherited_file` open on a descriptor it inherits (daemon_start.hpp).
  void start_daemon(StartedBy how, const std::optional<fs::path>& inherited_file = std::nullopt) {
    DaemonStart start = how == StartedBy::systemd_unit ? unit_start(tmp_.path()) : root_shell_start();
    start.inherited_file = inherited_file;
    start.argv = replace_unit_paths(start.argv, tool("kforged"), spool(), admins_.name());
    if (how == StartedBy::systemd_unit) prepare_state_directory(spool(), start);
    daemon_exit_ = -1;
    daemon_ = launch_daemon(start, daemon_log_file());
    ASSERT_TRUE(eventually([&] { return fs::exists(spool() / "audit.log") || !daemon_alive(); }, seconds(30)));
    ASSERT_TRUE(daemon_alive()) << daemon_log();
  }
  // SIGTERM; kforged must stop at once (not blocked anywhere) and exit 0.
  void stop_daemon() {
    if (daemon_alive()) ::kill(daemon_, SIGTERM);
    const bool ended = eventually([&] { return !daemon_alive(); }, seconds(45));
    if (!ended) {
      ::kill(daemon_, SIGKILL);
      daemon_exit_ = wait_exit(daemon_);
    }
    daemon_ = -1;
    EXPECT_TRUE(ended) << "kforged did not stop on SIGTERM\n" << daemon_log();
    EXPECT_EQ(daemon_exit_, 0) << daemon_log();
  }
  // False once kforged has exited (its exit code is then kept).
  bool daemon_alive() {
    if (daemon_ <= 0 || daemon_exit_ >= 0) return false;
    int status = 0;
    if (::waitpid(daemon_, &status, WNOHANG) != daemon_) return true;
    daemon_exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return false;
  }
  pid_t daemon_pid() const { return daemon_; }

  // A command as user U, bounded: a command that hangs (a status stuck on a FIFO) fails the test instead.
  Outcome as(const TestUser& u, const std::vector<std::string>& argv, seconds limit = seconds(60)) {
    RunAs r = u.as();
    r.home = home(u);
    return run_bounded(argv, tmp_.path(), {}, r, limit);
  }
  Outcome sh(const TestUser& u, const std::string& script) { return as(u, {"/bin/sh", "-c", script}); }
  Outcome kforge_as(const TestUser& u, std::vector<std::string> args, seconds limit = seconds(20)) {
    args.insert(args.begin(), tool("kforge"));
    args.insert(args.end(), {"--spool", spool().string()});
    return as(u, args, limit);
  }
  Outcome kforge_as_root(std::vector<std::string> args, seconds limit = seconds(20)) {
    args.insert(args.begin(), tool("kforge"));
    args.insert(args.end(), {"--spool", spool().string()});
    return run_bounded(args, tmp_.path(), {}, std::nullopt, limit);
  }
  // A function run by a process of user U (its groups, gid, uid), in the background; killed at the end.
  pid_t attack_in_background(const TestUser& u, const std::function<int()>& body) {
    const pid_t pid = fork_as(u.as(), body);
    helpers_.push_back(pid);
    return pid;
  }
  // The same, waited for: its exit code.
  int attack(const TestUser& u, const std::function<int()>& body) { return wait_exit(fork_as(u.as(), body)); }

  // Writes `bytes` to `file` as U, mode 0600, through a temporary name and a rename (as kforge submit does).
  void drop_file_as(const TestUser& u, const fs::path& file, const std::string& bytes) {
    const int rc = attack(u, [&] {
      const std::string tmp = file.string() + ".tmp";
      const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
      if (fd < 0 || ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) return 1;
      ::close(fd);
      return ::rename(tmp.c_str(), file.c_str()) == 0 ? 0 : 2;
    });
    ASSERT_EQ(rc, 0) << "could not write " << file << " as " << u.name();
  }
  // A submit request written by hand as U, without kforge submit's own checks: what a user can always do.
  void write_request_as(const TestUser& u, const std::string& name, const std::string& campaign,
                        const std::string& site) {
    const std::string text = "kforge-request 1\nkind submit\nname " + name + "\ncampaign-bytes " +
                             std::to_string(campaign.size()) + "\n" + campaign + "\nsite-bytes " +
                             std::to_string(site.size()) + "\n" + site + "\n";
    drop_file_as(u, spool() / "requests" / ("99999999999999999999-" + u.name() + "-" + name + ".req"), text);
  }

  // gemm-small (2 generations of 8 candidates, seconds on the host) as U's campaign NAME, in U's home.
  fs::path campaign_file(const TestUser& u, const std::string& name, int generations = 2,
                         const std::string& extra = "") const {
    std::string text = slurp(fs::path(KFORGE_SOURCE_DIR) / "tests/integration/data/gemm-small.yaml");
    text.replace(text.find("name: gemm-small"), 16, "name: " + name);
    text.replace(text.find("generations: 2"), 14, "generations: " + std::to_string(generations));
    const fs::path file = home(u) / (name + ".yaml");
    std::ofstream(file) << text << extra;
    return file;
  }
  void submit(const TestUser& u, const std::string& name, int generations = 2) {
    const Outcome o = kforge_as(u, {"submit", campaign_file(u, name, generations).string()});
    ASSERT_EQ(o.code, 0) << o.err;
  }
  // The pid of the `kforge run` driving U's campaign NAME, once the daemon started it.
  long driver_of(const TestUser& u, const std::string& name) {
    const fs::path lock = dir_of(u, name) / "kforge.lock";
    long pid = 0;
    eventually(
        [&] {
          pid = lock_held(lock) ? std::atol(slurp(lock).c_str()) : 0;
          return pid > 0;
        },
        seconds(60));
    return pid;
  }
  // U stops (SIGSTOP) its own campaign's process group: it stays "running" for the daemon, and uses no CPU.
  void freeze_own_campaign(const TestUser& u, const std::string& name, long pid) {
    ASSERT_GT(pid, 0) << "no kforge run for " << name << "\n" << daemon_log();
    const Outcome o = sh(u, "kill -STOP -" + std::to_string(pid));
    ASSERT_EQ(o.code, 0) << o.err;
  }
  void kill_own_campaign(const TestUser& u, long pid) {
    const Outcome o = sh(u, "kill -KILL -" + std::to_string(pid));
    ASSERT_EQ(o.code, 0) << o.err;
  }

  // Polls U's `kforge status NAME --json` until the campaign is done; every call must answer within 20 s (that is
  // the daemon and the spool still serving U). Returns the last answer.
  std::string wait_done(const TestUser& u, const std::string& name, seconds limit = seconds(120)) {
    std::string last;
    eventually(
        [&] {
          const Outcome o = kforge_as(u, {"status", name, "--json"});
          EXPECT_NE(o.code, -1) << "kforge status of " << u.name() << " hung";
          last = o.out + o.err;
          return o.out.find("\"state\":\"done\"") != std::string::npos || o.code == -1;
        },
        limit);
    EXPECT_NE(last.find("\"state\":\"done\""), std::string::npos) << name << " of " << u.name() << " did not finish\n"
                                                                  << last << "\n"
                                                                  << daemon_log();
    return last;
  }

  TempDir tmp_;
  TestGroup admins_{"adm"};
  TestUser victim_{"v", tmp_.path()};
  TestUser attacker_{"x", tmp_.path()};
  TestUser admin_{"m", tmp_.path(), admins_.name()};
  fs::path bin_;
  pid_t daemon_ = -1;
  int daemon_exit_ = -1;  // kforged's exit code once it has exited
  std::vector<pid_t> helpers_;
};

// The lines of `text` that mention `needle`.
inline int count_lines_with(const std::string& text, const std::string& needle) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

}  // namespace kforge::test
