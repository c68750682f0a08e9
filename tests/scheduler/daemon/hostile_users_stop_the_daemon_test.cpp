// Attack class 1 of docs/isolation.md, "Users against the daemon": one user cannot stop or freeze kforged for
// everyone. kforged runs as the shipped systemd unit starts it. The attacker holds a shared flock on the pid file
// across a restart; plants in their own part of the spool a folder made unreadable, a folder symlinked to the
// victim's, FIFOs as campaign.yaml, kforge.lock, FAILED and a generation file, campaign.yaml -> /dev/zero, 80 hard
// links to a 15 MiB campaign.yaml and undeletable *.req folders; and makes an accepted campaign's child fail at
// once in a folder that cannot take FAILED. A second attacker makes their whole folder unreadable. Through all of
// it the victim's campaign runs to its end, root's and the admin's `kforge status` answer, every attack is
// reported as the attacker's campaign's failure, and kforged stops at once on SIGTERM.
#include <sys/file.h>

#include "hostile_users.hpp"

using namespace kforge::test;

TEST_F(HostileUsers, OneUserCannotStopOrFreezeTheDaemonForEveryone) {
  // A shared flock on the world-readable pid file kept every later start from locking the spool (exit 2).
  start_daemon(StartedBy::systemd_unit);
  attack_in_background(attacker_, [&] {
    const int fd = ::open((spool() / "kforged.pid").c_str(), O_RDONLY);
    if (fd < 0 || ::flock(fd, LOCK_SH) != 0) return 3;
    ::pause();
    return 0;
  });
  EXPECT_EQ(attack(attacker_, [&] { return ::open((spool() / "kforged.lock").c_str(), O_RDONLY) < 0 ? 0 : 1; }), 0)
      << "the attacker could open the daemon's lock file";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the flock is taken
  stop_daemon();
  start_daemon(StartedBy::systemd_unit);

  // A second attacker makes their whole folder unreadable while their campaign runs.
  TestUser other{"y", tmp_.path()};
  fs::create_directories(home(other));
  ASSERT_EQ(::chown(home(other).c_str(), other.uid(), other.as().gid), 0);
  submit(other, "hidden", 200);
  const long hidden = driver_of(other, "hidden");
  const std::string hide = "chmod 000 " + (spool() / "campaigns" / other.name()).string();
  ASSERT_EQ(sh(other, hide + "; kill -KILL -" + std::to_string(hidden) + " 2>/dev/null; true").code, 0);

  // An accepted campaign, frozen by its owner, then made to fail at once in a folder that cannot take FAILED.
  submit(attacker_, "loop", 200);
  const long loop = driver_of(attacker_, "loop");
  freeze_own_campaign(attacker_, "loop", loop);
  const fs::path mine = spool() / "campaigns" / attacker_.name();
  const std::string valid = campaign_file(attacker_, "planted").string();
  // What the attacker plants in their own folder ($1: a valid campaign file, $2: the victim's campaign folder,
  // $3: requests/, $4: the frozen child's pid).
  const char* plant = R"(set -e
    mkdir locked; cp "$1" locked/campaign.yaml; chmod 000 locked
    ln -s "$2" peek
    mkdir fifo-yaml; mkfifo fifo-yaml/campaign.yaml
    mkdir fifo-lock; cp "$1" fifo-lock/campaign.yaml; mkfifo fifo-lock/kforge.lock
    mkdir fifo-failed; cp "$1" fifo-failed/campaign.yaml; mkfifo fifo-failed/FAILED
    mkdir fifo-h5; cp "$1" fifo-h5/campaign.yaml; mkfifo fifo-h5/gen-0000.h5
    mkdir -p fifo-task/g0000/tasks fifo-task/g0000/shards; cp "$1" fifo-task/campaign.yaml
    mkfifo fifo-task/g0000/tasks/0000.yaml; touch fifo-task/g0000/shards/0000.h5
    mkdir zero; ln -s /dev/zero zero/campaign.yaml
    head -c 15728640 /dev/zero | tr '\0' '#' > "$HOME/big.yaml"
    for i in $(seq 80); do mkdir big-$i; ln "$HOME/big.yaml" big-$i/campaign.yaml; done
    for i in 1 2 3; do mkdir "$3/zz-dir-$i.req"; touch "$3/zz-dir-$i.req/keep"; done
    echo 'garbage: [' > loop/site.yaml; chmod 555 loop
    kill -KILL -"$4")";
  const Outcome planted = as(attacker_, {"/bin/sh", "-c", std::string("cd ") + mine.string() + " && " + plant, "sh",
                                         valid, (spool() / "campaigns" / victim_.name() / "victim").string(),
                                         (spool() / "requests").string(), std::to_string(loop)});
  ASSERT_EQ(planted.code, 0) << planted.err;

  // The victim's campaign runs through all of it.
  submit(victim_, "victim");
  wait_done(victim_, "victim");
  ASSERT_TRUE(daemon_alive()) << daemon_log();

  // Root's and the admin's status answer (a FIFO where a task manifest should be costs its line 5 s, not the
  // command), with the victim's campaign done and the attacks shown as the attacker's failures.
  const Outcome table = kforge_as_root({"status"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("fifo-failed: cannot read the campaign directory: " + (mine / "fifo-failed").string() +
                           "/FAILED: is a FIFO, not a regular file"),
            std::string::npos);
  EXPECT_NE(table.out.find("fifo-task: cannot read the campaign directory: the helper reading as " + attacker_.name()),
            std::string::npos);
  const Outcome root = kforge_as_root({"status", "--json"});
  const Outcome admin = kforge_as(admin_, {"status", "--json"});
  const std::string done = "\"owner\":\"" + victim_.name() + "\",\"campaign\":\"victim\",\"state\":\"done\"";
  for (const Outcome* o : {&root, &admin}) {
    ASSERT_EQ(o->code, 0) << o->err;
    EXPECT_NE(o->out.find(done), std::string::npos) << "the victim's campaign is missing";
  }
  EXPECT_NE(root.out.find("\"campaign\":\"locked\",\"state\":\"failed\""), std::string::npos);

  // Each attack is that campaign's failure, named in the daemon's log.
  const std::string log = daemon_log();
  const std::string at = mine.string() + "/";
  for (const std::string& why : {at + "locked/campaign.yaml: cannot open: Permission denied",
                                 at + "peek: is a symbolic link, not a campaign folder (never followed)",
                                 at + "fifo-yaml/campaign.yaml: is a FIFO, not a regular file",
                                 at + "fifo-lock/kforge.lock: the campaign lock file is not a regular file",
                                 at + "zero/campaign.yaml: is a symbolic link (never followed)",
                                 at + "big-80/campaign.yaml: 15728640 bytes, larger than the limit of 1048576 bytes",
                                 "cannot examine the campaign folders of " + other.name()}) {
    EXPECT_NE(log.find(why), std::string::npos) << "not reported: " << why << "\n" << log;
  }
  // The child that fails at once is not restarted in a loop, and each undeletable request is logged once.
  EXPECT_LE(count_lines_with(log, "[" + attacker_.name() + "/loop] started kforge run"), 3) << log;
  EXPECT_NE(log.find("[" + attacker_.name() + "/loop] could not record the failure in FAILED"), std::string::npos)
      << log;
  for (const std::string i : {"1", "2", "3"}) {
    EXPECT_EQ(count_lines_with(log, "zz-dir-" + i + ".req cannot be removed"), 1) << log;
    EXPECT_EQ(count_lines_with(log, "zz-dir-" + i + ".req dropped"), 1) << log;
  }
  stop_daemon();
}
