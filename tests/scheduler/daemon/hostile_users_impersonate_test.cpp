// Attack class 3 of docs/isolation.md, "Users against the daemon": identity. kforged runs as an administrator
// starts it from a root shell. The attacker writes a request into the victim's group-writable file in a shared
// setgid project folder and moves it into requests/, where its owner would be the victim; makes a campaign folder
// by hand (no request, no audit line, none of the daemon's checks); and rewrites an accepted campaign's
// campaign.yaml by hand. The request is refused, the folders are never run and their status says why, the hand-made
// one runs once it is submitted, and the victim's own campaign runs to its end.
#include "hostile_users.hpp"

using namespace kforge::test;

TEST_F(HostileUsers, NoUserActsAsAnotherOrRunsACampaignTheDaemonDidNotAccept) {
  // A project group of the victim and the attacker, with a shared setgid folder (as sites give projects).
  TestGroup project{"prj"};
  for (const TestUser* u : {&victim_, &attacker_}) run_or_throw("usermod -a -G " + project.name() + " " + u->name());
  const fs::path shared = tmp_.path() / "project";
  fs::create_directories(shared);
  run_or_throw("chgrp " + project.name() + " " + shared.string() + " && chmod 2770 " + shared.string());
  ASSERT_EQ(sh(victim_, "umask 002; echo 'meeting notes' > " + (shared / "notes.txt").string()).code, 0);
  start_daemon(StartedBy::root_shell);

  // The attacker's text in the victim's file, moved into requests/: its owner would say "the victim submitted it".
  const std::string site = slurp(fs::path(KFORGE_SOURCE_DIR) / "site-configs/local.yaml");
  const std::string campaign = slurp(campaign_file(attacker_, "hijack"));
  const std::string request = "kforge-request 1\nkind submit\nname hijack\ncampaign-bytes " +
                              std::to_string(campaign.size()) + "\n" + campaign + "\nsite-bytes " +
                              std::to_string(site.size()) + "\n" + site + "\n";
  std::ofstream(home(attacker_) / "request.txt") << request;
  const fs::path moved = spool() / "requests" / "99999999999999999999-hijack.req";
  const Outcome hijack =
      sh(attacker_, "cat " + (home(attacker_) / "request.txt").string() + " > " + (shared / "notes.txt").string() +
                        " && mv " + (shared / "notes.txt").string() + " " + moved.string());
  ASSERT_EQ(hijack.code, 0) << hijack.err;

  // A campaign folder made by hand, and an accepted campaign whose campaign.yaml is then rewritten by hand.
  const fs::path mine = spool() / "campaigns" / attacker_.name();
  submit(attacker_, "edited", 200);
  const long edited = driver_of(attacker_, "edited");
  freeze_own_campaign(attacker_, "edited", edited);
  const fs::path handmade = campaign_file(attacker_, "handmade", 1);
  const Outcome made = sh(attacker_, "mkdir " + (mine / "handmade").string() + " && cp " + handmade.string() + " " +
                                         (mine / "handmade/campaign.yaml").string() + " && cp " +
                                         (mine / "edited/site.yaml").string() + " " + (mine / "handmade").string() +
                                         " && echo '# mine now' >> " + (mine / "edited/campaign.yaml").string());
  ASSERT_EQ(made.code, 0) << made.err;
  kill_own_campaign(attacker_, edited);

  submit(victim_, "victim");
  wait_done(victim_, "victim");
  EXPECT_TRUE(eventually([&] { return fs::exists(mine / "edited/FAILED"); }, seconds(30))) << daemon_log();

  const std::string log = daemon_log();
  EXPECT_FALSE(fs::exists(spool() / "campaigns" / victim_.name() / "hijack")) << "the moved request ran as the victim";
  EXPECT_NE(log.find(moved.filename().string() + " dropped: " + moved.string() +
                     ": not accepted as a request: mode 0664 lets others than its owner write it"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("[" + attacker_.name() + "/handmade] started kforge run"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(mine / "handmade/kforge.log"));
  const Outcome status = kforge_as(attacker_, {"status", "--json"});
  EXPECT_NE(status.out.find(R"("campaign":"handmade","state":"failed")"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("a campaign folder made by hand is never run"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("its campaign.yaml was changed by hand after kforged accepted it"), std::string::npos)
      << status.out;

  // Submitted, the hand-made campaign is accepted and runs.
  ASSERT_EQ(kforge_as(attacker_, {"submit", handmade.string()}).code, 0);
  wait_done(attacker_, "handmade");
  stop_daemon();
}
