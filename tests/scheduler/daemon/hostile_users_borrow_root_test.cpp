// Attack class 2 of docs/isolation.md, "Users against the daemon": root's power does not leak through kforged.
// kforged runs as an administrator starts it from a root shell, its log in a file only root may read. The attacker
// asks, in hand-written requests, whether files exist in a folder only root (and its group) may enter, by naming
// them as replay_cache and search.prior; turns a campaign's kforge.log into a symlink to a root-only file and
// kills the campaign, so that the daemon quotes "the last line of its log"; points a campaign folder at a root-only
// folder and submits into it; takes every descriptor of its own running child (pidfd_getfd), looking for one the
// daemon inherited from the root shell that started it; and makes its log unopenable, then takes descriptor 2 of
// its own restarted child to write into root's log. None of it works, and the victim's campaign runs to its end.
#include <sys/stat.h>
#include <sys/syscall.h>

#include <numeric>

#include "hostile_users.hpp"

using namespace kforge::test;

namespace {

constexpr const char* kSecret = "ROOT-SECRET-LINE-4711";
constexpr const char* kForged = "FORGED-BY-THE-ATTACKER";

// Run as the attacker: for up to `limit` (or until `stop_when` exists), takes the descriptors `fds` of every process
// of its own whose command line holds `marker` (pidfd_getfd) and writes kForged into each that is not its own
// file. Exit code 1 when it wrote anywhere.
int write_into_descriptors_of_own_processes(const std::string& marker, const std::vector<int>& fds,
                                            const fs::path& stop_when, seconds limit) {
  int wrote = 0;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline && !fs::exists(stop_when)) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
      const std::string pid = entry.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (slurp(entry.path() / "cmdline").find(marker) == std::string::npos) continue;
      const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, std::stoi(pid), 0));
      if (pidfd < 0) continue;
      for (const int target : fds) {
        const int fd = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, target, 0));
        if (fd < 0) continue;
        struct stat st {};
        const std::string line = std::string(kForged) + "\n";
        // Its own files (its log, its lock) are no news: a file of someone else's is what it came for.
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid != ::getuid())
          wrote += ::write(fd, line.data(), line.size()) > 0;
        ::close(fd);
      }
      ::close(pidfd);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return wrote > 0 ? 1 : 0;
}

}  // namespace

TEST_F(HostileUsers, RootsRightsDoNotLeakThroughTheDaemon) {
  // Root's things: a folder of root's group (0750 root:root) holding a file, a root-only file with a secret line,
  // and a folder only root may enter and write (0770 root:root).
  const fs::path rootonly = tmp_.path() / "rootonly";
  fs::create_directories(rootonly);
  std::ofstream(rootonly / "exists.json") << "{}\n";
  ::chmod(rootonly.c_str(), 0750);
  const fs::path secret = tmp_.path() / "root-secret.txt";
  std::ofstream(secret) << "first line\n" << kSecret << "\n";
  ::chmod(secret.c_str(), 0640);
  const fs::path rootdir = tmp_.path() / "rootdir";
  fs::create_directories(rootdir);
  ::chmod(rootdir.c_str(), 0770);
  const fs::path held = tmp_.path() / "root-held.log";  // open in the root shell that starts the daemon
  std::ofstream(held) << "root's own\n";
  ::chmod(held.c_str(), 0600);
  start_daemon(StartedBy::root_shell, held);

  // Which files exist in root's folder? Asked through paths in hand-written submits, checked by the daemon.
  const std::string site = slurp(fs::path(KFORGE_SOURCE_DIR) / "site-configs/local.yaml");
  std::string probe = slurp(campaign_file(attacker_, "probe-yes"));
  probe.replace(probe.find("evaluation:\n"), 12,
                "evaluation:\n  replay_cache: " + (rootonly / "exists.json").string() + "\n");
  write_request_as(attacker_, "probe-yes", probe, site);
  std::string absent = slurp(campaign_file(attacker_, "probe-no"));
  absent.replace(absent.find("evaluation:\n"), 12,
                 "evaluation:\n  replay_cache: " + (rootonly / "no.json").string() + "\n");
  write_request_as(attacker_, "probe-no", absent, site);
  std::string prior = slurp(campaign_file(attacker_, "prior-yes"));
  prior.replace(prior.find("search:\n"), 8, "search:\n  prior: [" + (rootonly / "exists.json").string() + "]\n");
  write_request_as(attacker_, "prior-yes", prior, site);

  // A campaign folder that is a symlink to root's folder, then a submit into it.
  const fs::path mine = spool() / "campaigns" / attacker_.name();
  submit(attacker_, "leak", 200);  // also makes the attacker's folder
  ASSERT_EQ(sh(attacker_, "ln -s " + rootdir.string() + " " + (mine / "intrude").string()).code, 0);
  submit(attacker_, "intrude");

  // kforge.log turned into a symlink to root's secret, then the child killed: the daemon reads "its last line".
  // Every descriptor above 2 of the attacker's own running child: none may be one the daemon inherited.
  const long leak = driver_of(attacker_, "leak");
  std::vector<int> above_stderr(61);
  std::iota(above_stderr.begin(), above_stderr.end(), 3);
  const int inherited = attack(attacker_, [&] {
    return write_into_descriptors_of_own_processes((mine / "leak/campaign.yaml").string(), above_stderr,
                                                   tmp_.path() / "never", seconds(2));
  });
  freeze_own_campaign(attacker_, "leak", leak);
  ASSERT_EQ(sh(attacker_, "ln -sf " + secret.string() + " " + (mine / "leak/kforge.log").string()).code, 0);
  kill_own_campaign(attacker_, leak);

  // kforge.log made unopenable (a FIFO), the child killed, and descriptor 2 of the restarted child taken.
  submit(attacker_, "grab", 200);
  const long grab = driver_of(attacker_, "grab");
  freeze_own_campaign(attacker_, "grab", grab);
  const fs::path grab_log = mine / "grab/kforge.log";
  ASSERT_EQ(sh(attacker_, "rm " + grab_log.string() + " && mkfifo " + grab_log.string()).code, 0);
  kill_own_campaign(attacker_, grab);
  const int grabbed = attack(attacker_, [&] {
    return write_into_descriptors_of_own_processes((mine / "grab/campaign.yaml").string(), {2}, mine / "grab/FAILED",
                                                   seconds(15));
  });

  submit(victim_, "victim");
  wait_done(victim_, "victim");
  EXPECT_TRUE(eventually([&] { return fs::exists(mine / "leak/FAILED"); }, seconds(30))) << daemon_log();

  const std::string log = daemon_log();
  const std::string audit = slurp(spool() / "audit.log");
  // Root's folder is examined with the attacker's rights only: the file there is as absent as one that is not.
  for (const std::string name : {"probe-yes", "probe-no", "prior-yes"}) {
    EXPECT_FALSE(fs::exists(mine / name / "campaign.yaml")) << name << " was accepted";
    EXPECT_NE(audit.find("campaign=" + attacker_.name() + "/" + name + " failed: "), std::string::npos) << audit;
  }
  EXPECT_NE(log.find("replay_cache: no such file: " + (rootonly / "exists.json").string()), std::string::npos) << log;
  EXPECT_NE(log.find("replay_cache: no such file: " + (rootonly / "no.json").string()), std::string::npos) << log;
  // Nothing written into root's folder; the symlinked campaign folder refused as such.
  EXPECT_TRUE(fs::is_empty(rootdir));
  EXPECT_NE(log.find((mine / "intrude").string() + ": is a symbolic link, not a campaign folder"), std::string::npos)
      << log;
  // Root's secret is quoted nowhere: not in the daemon's log, FAILED, or the attacker's status.
  const Outcome status = kforge_as(attacker_, {"status"});
  for (const std::string* text : {&log, &status.out}) EXPECT_EQ(text->find(kSecret), std::string::npos) << *text;
  const std::string failed = slurp(mine / "leak/FAILED");
  EXPECT_EQ(failed.find(kSecret), std::string::npos) << failed;
  EXPECT_NE(failed.find("cannot open the campaign's log"), std::string::npos) << failed;
  // No child ever held the daemon's own stderr: nothing was written into root's log through one.
  EXPECT_EQ(grabbed, 0) << "the attacker wrote into a descriptor of its child";
  EXPECT_EQ(log.find(kForged), std::string::npos) << log;
  EXPECT_EQ(inherited, 0) << "a descriptor above 2 of the attacker's child was someone else's file";
  EXPECT_EQ(slurp(held), "root's own\n") << "the attacker wrote into a file the daemon inherited";
  EXPECT_NE(slurp(mine / "grab/FAILED").find("the campaign's log"), std::string::npos) << slurp(mine / "grab/FAILED");
  stop_daemon();
}
