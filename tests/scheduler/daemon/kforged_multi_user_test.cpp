// kforged as root at a multi-user site, with real users created for the test (docs/daemon.md, "Who runs what"):
// alice's campaign runs as alice (her compiler and agent record their uid), bob cannot cancel it nor read it,
// campaign names are per user, a member of the admin group can see and cancel it, root cannot submit, and no file
// of a campaign belongs to root. Runs two tiny host gemm campaigns with the local executor (about half a minute).
#include <gtest/gtest.h>

#include <grp.h>
#include <sys/stat.h>

#include <csignal>
#include <set>

#include "process_helpers.hpp"

using namespace kforge::test;
namespace fs = std::filesystem;

namespace {

class MultiUserKforged : public ::testing::Test {
 protected:
  void SetUp() override {
    open_to_every_user(tmp_.path());
    bin_ = bin_dir_for_users(tmp_.path());
    // Where the wrappers record who ran them: writable by everyone, so a process of any user (root included)
    // leaves its trace.
    fs::create_directories(uids());
    fs::permissions(uids(), fs::perms::all | fs::perms::sticky_bit);
    for (const TestUser* u : {&alice_, &bob_, &carol_}) fs::create_directories(home(*u));
    for (const TestUser* u : {&alice_, &bob_, &carol_}) {
      ASSERT_EQ(::chown(home(*u).c_str(), u->uid(), u->as().gid), 0);
    }
    std::ofstream(tmp_.path() / "gemm_rewriter.py")
        << slurp(fs::path(KFORGE_SOURCE_DIR) / "share/agents/gemm_rewriter.py");
  }

  fs::path spool() const { return tmp_.path() / "spool"; }
  fs::path uids() const { return tmp_.path() / "uids"; }
  fs::path home(const TestUser& u) const { return tmp_.path() / ("home-" + u.name()); }
  fs::path dir_of(const TestUser& u, const std::string& name) const { return spool() / "campaigns" / u.name() / name; }
  std::string tool(const std::string& name) const { return (bin_ / name).string(); }

  Outcome as(const TestUser& u, std::vector<std::string> argv) {
    RunAs r = u.as();
    r.home = home(u);
    return run_process(argv, tmp_.path(), {}, r);
  }
  Outcome kforge_as(const TestUser& u, std::vector<std::string> args) {
    args.insert(args.begin(), tool("kforge"));
    args.insert(args.end(), {"--spool", spool().string()});
    return as(u, args);
  }

  // An executable script that records `id -u` in uids/TAG, then runs the real thing.
  fs::path recording_wrapper(const std::string& tag, const std::string& exec_line) const {
    const fs::path file = tmp_.path() / (tag + ".sh");
    std::ofstream(file) << "#!/bin/sh\nid -u >> " << (uids() / tag).string() << "\n" << exec_line << "\n";
    fs::permissions(file, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    return file;
  }

  // gemm-small renamed, with its compiler (and optionally an agent) replaced by recording wrappers.
  fs::path campaign_for(const TestUser& u, const std::string& name, int seed, bool with_agent) const {
    std::string text = slurp(fs::path(KFORGE_SOURCE_DIR) / "tests/integration/data/gemm-small.yaml");
    text.replace(text.find("name: gemm-small"), 16, "name: " + name);
    text.replace(text.find("seed: 7"), 7, "seed: " + std::to_string(seed));
    const fs::path cc = recording_wrapper("cc-" + u.name(), "exec c++ \"$@\"");
    text.replace(text.find("  compile_flags:"), 0, "  compiler: " + cc.string() + "\n");
    if (with_agent) {
      const fs::path agent = recording_wrapper(
          "agent-" + u.name(), "exec python3 " + (tmp_.path() / "gemm_rewriter.py").string() + " \"$@\"");
      text += "agents:\n  - name: recorder\n    command: [" + agent.string() +
              "]\n    weight: 0.5\n"
              "    timeout_s: 60\n";
    }
    const fs::path file = tmp_.path() / (u.name() + "-" + name + ".yaml");
    std::ofstream(file) << text;
    return file;
  }

  // A request file written by hand as user U (what a user could do without kforge): the daemon must judge it by
  // its owner, whatever it says. Named to sort after every request already there.
  void forge_cancel(const TestUser& u, const std::string& owner, const std::string& name) {
    const fs::path text = tmp_.path() / ("forged-" + u.name());
    std::ofstream(text) << "kforge-request 1\nkind cancel\nname " << name << "\nowner " << owner << "\n";
    const fs::path target = spool() / "requests" / ("99999999999999999999-" + u.name() + "-cancel.req");
    const std::string tmp = target.string() + ".tmp";
    Outcome o = as(u, {"/bin/sh", "-c", "cp " + text.string() + " " + tmp + " && mv " + tmp + " " + target.string()});
    ASSERT_EQ(o.code, 0) << o.err;
  }

  std::set<std::string> recorded_uids(const std::string& tag) const {
    std::set<std::string> out;
    std::istringstream in(slurp(uids() / tag));
    for (std::string line; std::getline(in, line);) out.insert(line);
    return out;
  }

  TempDir tmp_;
  TestGroup admins_{"adm"};
  TestUser alice_{"a", tmp_.path()};
  TestUser bob_{"b", tmp_.path()};
  TestUser carol_{"c", tmp_.path(), admins_.name()};  // in the admin group
  fs::path bin_;
};

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}
uid_t owner_of(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

}  // namespace

TEST_F(MultiUserKforged, EachCampaignRunsAsItsSubmitterAndOnlyTheOwnerOrAnAdminMayCancelOrSeeIt) {
  // Start-up lays the spool out with the documented owners and modes.
  const std::vector<std::string> daemon = {tool("kforged"), "--spool", spool().string(), "--admin-group",
                                           admins_.name()};
  const pid_t first = start_process(daemon, tmp_.path() / "first.out", tmp_.path() / "first.err");
  ASSERT_TRUE(eventually([&] { return fs::exists(spool() / "kforged.pid") && fs::exists(spool() / "audit.log"); }));
  ::kill(first, SIGTERM);
  ASSERT_EQ(wait_exit(first), 0) << slurp(tmp_.path() / "first.err");
  EXPECT_EQ(mode_of(spool()), 0711u);
  EXPECT_EQ(mode_of(spool() / "requests"), 01733u);
  EXPECT_EQ(mode_of(spool() / "campaigns"), 0751u);
  EXPECT_EQ(mode_of(spool() / "audit.log"), 0600u);
  EXPECT_EQ(owner_of(spool() / "requests"), 0u);

  // Requests: alice submits two campaigns, bob one under the same name as alice's first (names are per user),
  // bob forges a cancel of alice's first, carol (admin group) one of alice's second, root tries to submit.
  ASSERT_EQ(kforge_as(alice_, {"submit", campaign_for(alice_, "shared", 7, true).string()}).code, 0);
  ASSERT_EQ(kforge_as(alice_, {"submit", campaign_for(alice_, "second", 8, false).string()}).code, 0);
  Outcome b = kforge_as(bob_, {"submit", campaign_for(bob_, "shared", 9, false).string()});
  ASSERT_EQ(b.code, 0) << b.err;
  forge_cancel(bob_, alice_.name(), "shared");
  forge_cancel(carol_, alice_.name(), "second");
  Outcome root = run_process(
      {tool("kforge"), "submit", campaign_for(alice_, "rooted", 1, false).string(), "--spool", spool().string()},
      tmp_.path());
  EXPECT_EQ(root.code, 2);
  EXPECT_NE(root.err.find("campaigns never run as root"), std::string::npos) << root.err;
  Outcome listing = as(bob_, {"/bin/ls", (spool() / "requests").string()});
  EXPECT_NE(listing.code, 0) << "bob could list the requests of others: " << listing.out;

  Outcome run = run_process({daemon[0], daemon[1], daemon[2], daemon[3], daemon[4], "--once"}, tmp_.path());
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string audit = slurp(spool() / "audit.log");

  // alice's "shared" ran to its end as alice: bob's cancel was refused and recorded.
  EXPECT_TRUE(fs::exists(dir_of(alice_, "shared") / "gen-0001.h5")) << run.err;
  EXPECT_FALSE(fs::exists(dir_of(alice_, "shared") / "CANCELLED"));
  EXPECT_NE(audit.find("cancel uid=" + std::to_string(bob_.uid()) + " user=" + bob_.name() +
                       " campaign=" + alice_.name() + "/shared refused"),
            std::string::npos)
      << audit;
  EXPECT_NE(audit.find("submit uid=" + std::to_string(alice_.uid()) + " user=" + alice_.name() +
                       " campaign=" + alice_.name() + "/shared accepted"),
            std::string::npos)
      << audit;
  // Her compiler and her agent ran, and only ever as alice; bob's compiler only as bob; nothing as root.
  EXPECT_EQ(recorded_uids("cc-" + alice_.name()), std::set<std::string>{std::to_string(alice_.uid())});
  EXPECT_EQ(recorded_uids("agent-" + alice_.name()), std::set<std::string>{std::to_string(alice_.uid())});
  EXPECT_EQ(recorded_uids("cc-" + bob_.name()), std::set<std::string>{std::to_string(bob_.uid())});
  for (const TestUser* u : {&alice_, &bob_}) {
    const fs::path folder = spool() / "campaigns" / u->name();
    EXPECT_EQ(owner_of(folder), u->uid());
    EXPECT_EQ(mode_of(folder), 02750u);
    for (const auto& e : fs::recursive_directory_iterator(folder)) {
      EXPECT_EQ(owner_of(e.path()), u->uid()) << e.path() << " does not belong to " << u->name();
    }
  }
  EXPECT_TRUE(fs::exists(dir_of(bob_, "shared") / "gen-0001.h5"));
  // carol's cancel (admin group) was honoured before "second" ever started.
  EXPECT_NE(slurp(dir_of(alice_, "second") / "CANCELLED").find("by " + carol_.name()), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_of(alice_, "second") / "gen-0000.h5"));

  // Afterwards, through kforge and around it: bob can neither cancel, see nor read alice's campaign.
  Outcome cancel = kforge_as(bob_, {"cancel", "shared", "--owner", alice_.name()});
  EXPECT_EQ(cancel.code, 2);
  EXPECT_NE(cancel.err.find("permission denied: campaign 'shared' of user " + alice_.name()), std::string::npos)
      << cancel.err;
  Outcome peek = kforge_as(bob_, {"status", "shared", "--owner", alice_.name()});
  EXPECT_EQ(peek.code, 2);
  EXPECT_NE(peek.err.find("permission denied"), std::string::npos) << peek.err;
  EXPECT_NE(as(bob_, {"/bin/cat", (dir_of(alice_, "shared") / "campaign.yaml").string()}).code, 0);
  EXPECT_NE(as(bob_, {"/bin/cat", (spool() / "audit.log").string()}).code, 0);
  Outcome bobs = kforge_as(bob_, {"status", "--json"});
  EXPECT_EQ(bobs.out.find("\"owner\":\"" + alice_.name() + "\""), std::string::npos) << bobs.out;
  EXPECT_NE(bobs.out.find("\"owner\":\"" + bob_.name() + "\",\"campaign\":\"shared\",\"state\":\"done\""),
            std::string::npos)
      << bobs.out;
  // A spool alice keeps for her own kforged (created private by her first submit): bob gets told why not.
  const std::string own = (home(alice_) / "own-spool").string();
  ASSERT_EQ(
      as(alice_, {tool("kforge"), "submit", campaign_for(alice_, "mine", 3, false).string(), "--spool", own}).code, 0);
  EXPECT_EQ(mode_of(own), 0700u);
  Outcome intrude = as(bob_, {tool("kforge"), "submit", campaign_for(bob_, "mine", 4, false).string(), "--spool", own});
  EXPECT_EQ(intrude.code, 2);
  EXPECT_NE(intrude.err.find("Permission denied (kforge submit and cancel need to create files in"), std::string::npos)
      << intrude.err;
  Outcome look = as(bob_, {tool("kforge"), "status", "--spool", own});
  EXPECT_EQ(look.code, 2);
  EXPECT_NE(look.err.find("permission denied: " + own + " is not accessible to you"), std::string::npos) << look.err;

  // alice sees hers by NAME in the list's schema; carol (admin) sees it too.
  for (const TestUser* u : {&alice_, &carol_}) {
    Outcome mine = kforge_as(*u, {"status", "shared", "--owner", alice_.name(), "--json"});
    EXPECT_EQ(mine.code, 0) << mine.err;
    EXPECT_EQ(mine.out.rfind("{\"schema_version\":1,", 0), 0u) << mine.out;
    EXPECT_NE(mine.out.find("\"owner\":\"" + alice_.name() + "\",\"campaign\":\"shared\",\"state\":\"done\""),
              std::string::npos)
        << mine.out;
  }
}

// The catalog through kforged (docs/catalog.md, "Where it is"): a campaign the daemon runs for alice is entered in
// her own catalog (in her home, as her), her next campaign of the same space starts warm from it, and bob's starts
// cold: he cannot see her catalog. The daemon's own XDG_STATE_HOME (root's) never reaches a user's campaign.
TEST_F(MultiUserKforged, TheDaemonsCampaignsUseEachUsersOwnCatalog) {
  const fs::path roots_state = tmp_.path() / "root-state";
  fs::create_directories(roots_state);
  fs::permissions(roots_state, fs::perms::owner_all);
  const Env daemon_env = {{"KFORGE_CATALOG", ""}, {"XDG_STATE_HOME", roots_state.string()}};
  const std::vector<std::string> daemon = {tool("kforged"), "--spool", spool().string(), "--once"};
  const auto run_daemon = [&] {
    Outcome o = run_process(daemon, tmp_.path(), daemon_env);
    ASSERT_EQ(o.code, 0) << o.err;
  };

  // The daemon gives a campaign its user's passwd home: the test's folder for each (created without one).
  for (const TestUser* u : {&alice_, &bob_}) {
    ASSERT_EQ(std::system(("usermod -d " + home(*u).string() + " " + u->name()).c_str()), 0);
  }
  run_daemon();  // lays the spool out
  Outcome first = kforge_as(alice_, {"submit", campaign_for(alice_, "first", 7, false).string()});
  ASSERT_EQ(first.code, 0) << first.err;
  run_daemon();
  const fs::path catalog = home(alice_) / ".local/state/kforge/catalog";
  ASSERT_TRUE(fs::is_directory(catalog)) << slurp(spool() / "campaigns" / alice_.name() / "first" / "kforge.log");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(catalog)) {
    ++entries;
    EXPECT_EQ(owner_of(e.path()), alice_.uid()) << e.path();
    EXPECT_NE(slurp(e.path()).find((dir_of(alice_, "first")).string()), std::string::npos) << slurp(e.path());
  }
  EXPECT_EQ(entries, 1);
  EXPECT_TRUE(fs::is_empty(roots_state)) << "a user's campaign wrote into the daemon account's XDG_STATE_HOME";

  ASSERT_EQ(kforge_as(alice_, {"submit", campaign_for(alice_, "again", 8, false).string()}).code, 0);
  ASSERT_EQ(kforge_as(bob_, {"submit", campaign_for(bob_, "his", 9, false).string()}).code, 0);
  run_daemon();
  const std::string again = slurp(dir_of(alice_, "again") / "kforge.log");
  EXPECT_NE(again.find("catalog: warm start from 1 earlier campaign of this space"), std::string::npos) << again;
  EXPECT_NE(again.find(dir_of(alice_, "first").string()), std::string::npos) << again;
  const std::string his = slurp(dir_of(bob_, "his") / "kforge.log");
  EXPECT_NE(his.find("catalog: no earlier campaign of this space"), std::string::npos) << his;
  EXPECT_EQ(his.find(alice_.name()), std::string::npos) << his;
  EXPECT_TRUE(fs::exists(home(bob_) / ".local/state/kforge/catalog")) << "bob's finished campaign was not entered";
  EXPECT_TRUE(fs::is_empty(roots_state));
}
