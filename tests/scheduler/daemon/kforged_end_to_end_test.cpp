// kforged and the spool commands of kforge, as real processes on real campaigns (host backend, mpirun -np 2).
#include <gtest/gtest.h>

#include <csignal>
#include <set>

#include "kforge/jobs/archive.hpp"
#include "process_helpers.hpp"

using namespace kforge::test;
namespace fs = std::filesystem;

namespace {

// Everything runs as an unprivileged user created for the test: kforged then serves that user alone
// (single-user mode), as a user's own daemon or Slurm head job does. test_kforged_multi_user.cpp covers root.
class Kforged : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::chown(tmp_.path().c_str(), user_.uid(), user_.as().gid), 0);
    bin_ = bin_dir_for_users(tmp_.path());
  }
  fs::path spool() const { return tmp_.path() / "spool"; }
  fs::path campaign_dir(const std::string& name) const { return spool() / "campaigns" / user_.name() / name; }
  std::string tool(const std::string& name) const { return (bin_ / name).string(); }
  Outcome as_user(const std::vector<std::string>& argv, const Env& env = {}) {
    return run_process(argv, tmp_.path(), env, user_.as());
  }
  Outcome kforge(std::vector<std::string> args) {
    args.insert(args.begin(), tool("kforge"));
    args.insert(args.end(), {"--spool", spool().string()});
    return as_user(args);
  }
  pid_t start_daemon(const std::string& tag) {
    return start_process({tool("kforged"), "--spool", spool().string()}, tmp_.path() / (tag + ".out"),
                         tmp_.path() / (tag + ".err"), {}, user_.as());
  }
  Outcome run_once(const Env& env = {}, const std::string& max_restarts = "5") {
    return as_user({tool("kforged"), "--spool", spool().string(), "--once", "--max-restarts", max_restarts}, env);
  }
  std::string daemon_log(const std::string& tag) const { return slurp(tmp_.path() / (tag + ".err")); }
  // A copy of a test campaign the user can read (the checkout may not be readable by others).
  fs::path campaign(const std::string& file, const std::string& name) const {
    const std::string stem = file.substr(0, file.find('.'));
    return campaign_named(tmp_.path(), file, stem, name);
  }

  TempDir tmp_;
  TestUser user_{"e", tmp_.path()};
  fs::path bin_;
};

}  // namespace

TEST_F(Kforged, OnceDrivesTwoSubmittedCampaignsToCompletion) {
  for (const std::string name : {"alpha", "beta"}) {
    Outcome s = kforge({"submit", campaign("gemm-small.yaml", name).string()});
    ASSERT_EQ(s.code, 0) << s.err;
    EXPECT_EQ(s.out, name + "\n");
  }
  Outcome queued = kforge({"status", "--json"});
  EXPECT_NE(queued.out.find(R"("campaign":"alpha","state":"queued")"), std::string::npos) << queued.out;

  Outcome daemon = run_once();
  ASSERT_EQ(daemon.code, 0) << daemon.err;
  for (const std::string name : {"alpha", "beta"}) {
    Outcome report = as_user({tool("kforge"), "report", campaign_dir(name).string(), "--json"});
    ASSERT_EQ(report.code, 0) << report.err;
    EXPECT_NE(report.out.find(R"("generations":2)"), std::string::npos) << report.out;
    EXPECT_NE(report.out.find(R"("evaluations":16)"), std::string::npos) << report.out;
  }
  Outcome status = kforge({"status", "--json"});
  EXPECT_NE(status.out.find(R"("campaign":"alpha","state":"done","generations_done":2)"), std::string::npos)
      << status.out;
  EXPECT_NE(status.out.find(R"("campaign":"beta","state":"done","generations_done":2)"), std::string::npos)
      << status.out;
  EXPECT_TRUE(fs::is_empty(spool() / "requests"));
}

TEST_F(Kforged, KilledWhileACampaignRunsThenRestartedEvaluatesEveryCandidateExactlyOnce) {
  const pid_t first = start_daemon("first");
  ASSERT_EQ(kforge({"submit", campaign("gemm-resume.yaml", "gemm-resume").string()}).code, 0);
  const fs::path dir = campaign_dir("gemm-resume");
  ASSERT_TRUE(eventually([&] { return folder_has_file(dir / "g0001" / "shards"); })) << daemon_log("first");
  ::kill(first, SIGKILL);
  EXPECT_EQ(wait_exit(first), 128 + SIGKILL);
  ASSERT_FALSE(fs::exists(dir / "gen-0002.h5")) << "the campaign finished before the kill: the test proves nothing";
  // PR_SET_PDEATHSIG: the dead daemon's child stops and releases the campaign lock.
  EXPECT_TRUE(eventually([&] { return !lock_held(dir / "kforge.lock"); }));

  Outcome second = run_once();
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_NE(second.err.find("/gemm-resume] started kforge run (pid "), std::string::npos) << second.err;
  std::set<std::string> evaluated;
  size_t records = 0;
  for (int g = 0; g < 3; ++g) {
    char name[32];
    std::snprintf(name, sizeof name, "gen-%04d.h5", g);
    for (const auto& r : kforge::jobs::read_generation(dir / name).records) {
      ++records;
      evaluated.insert(r.candidate_id + "@" + r.target);
    }
  }
  EXPECT_EQ(records, 24u);
  EXPECT_EQ(evaluated.size(), records) << "an evaluation is in the archive twice";
}

TEST_F(Kforged, CancelStopsTheCampaignAndItIsNotRestarted) {
  const pid_t daemon = start_daemon("daemon");
  ASSERT_EQ(kforge({"submit", campaign("gemm-resume.yaml", "gemm-resume").string()}).code, 0);
  const fs::path dir = campaign_dir("gemm-resume");
  ASSERT_TRUE(eventually([&] { return folder_has_file(dir / "g0000" / "shards"); })) << daemon_log("daemon");
  Outcome cancel = kforge({"cancel", "gemm-resume"});
  ASSERT_EQ(cancel.code, 0) << cancel.err;
  ASSERT_TRUE(eventually([&] { return fs::exists(dir / "CANCELLED") && !lock_held(dir / "kforge.lock"); }));
  ::kill(daemon, SIGTERM);
  EXPECT_EQ(wait_exit(daemon), 0) << daemon_log("daemon");
  ASSERT_FALSE(fs::exists(dir / "gen-0002.h5")) << "the campaign finished before the cancel: the test proves nothing";
  const auto generations_before = fs::exists(dir / "gen-0000.h5") + fs::exists(dir / "gen-0001.h5");

  Outcome again = run_once();
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.err.find("started kforge run"), std::string::npos) << again.err;
  EXPECT_EQ(fs::exists(dir / "gen-0000.h5") + fs::exists(dir / "gen-0001.h5"), generations_before);
  Outcome status = kforge({"status", "--json"});
  EXPECT_NE(status.out.find(R"("campaign":"gemm-resume","state":"cancelled")"), std::string::npos) << status.out;
}

TEST_F(Kforged, InvalidCampaignSubmitExits2WithFileLineColumnAndWritesNothing) {
  const fs::path bad = tmp_.path() / "bad.yaml";
  std::ofstream(bad) << "campaign:\n  name: bad\n  family: gemm\n  backend: host\nspace:\n  parameters:\n"
                        "    MC: [16, 32]\nsearch:\n  generations: 2\n  populaton: 4\n";
  Outcome s = kforge({"submit", bad.string()});
  EXPECT_EQ(s.code, 2);
  EXPECT_EQ(s.err.rfind(bad.string() + ":10:3: search.populaton: ", 0), 0u) << s.err;
  EXPECT_FALSE(fs::exists(spool()));
}

TEST_F(Kforged, SubmitOfADifferentCampaignUnderATakenNameIsRefused) {
  ASSERT_EQ(kforge({"submit", campaign("gemm-small.yaml", "same").string()}).code, 0);
  const fs::path other = campaign("gemm-resume.yaml", "same");
  Outcome s = kforge({"submit", other.string()});
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.err.find("different campaign"), std::string::npos) << s.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(spool() / "requests"), fs::directory_iterator()), 1);
  EXPECT_EQ(kforge({"cancel", "never-submitted"}).code, 2);
}

TEST_F(Kforged, SecondDaemonOnTheSameSpoolExits2AndTheFirstStopsCleanlyOnSigterm) {
  const pid_t first = start_daemon("first");
  ASSERT_TRUE(eventually([&] { return slurp(spool() / "kforged.pid") == std::to_string(first) + "\n"; }));
  Outcome second = run_once();
  EXPECT_EQ(second.code, 2);
  EXPECT_NE(second.err.find("another kforged (pid " + std::to_string(first) + ")"), std::string::npos) << second.err;
  ::kill(first, SIGTERM);
  EXPECT_EQ(wait_exit(first), 0) << daemon_log("first");
}

TEST_F(Kforged, UnusableSpoolExits2) {
  Outcome o = as_user({tool("kforged"), "--spool", "/proc/kforge-spool", "--once"});
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("/proc/kforge-spool"), std::string::npos) << o.err;
}

// A stand-in for kforge (KFORGE_BIN) that fails: the daemon restarts it with backoff, then marks the campaign FAILED.
TEST_F(Kforged, FailingChildIsRestartedThenTheCampaignIsMarkedFailedWithItsLastMessage) {
  const fs::path fake = tmp_.path() / "failing-kforge.sh";
  std::ofstream(fake) << "#!/bin/sh\necho started >> " << (tmp_.path() / "starts").string()
                      << "\necho 'kforge run: boom: disk on fire' >&2\nexit 1\n";
  fs::permissions(fake, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  ASSERT_EQ(kforge({"submit", campaign("gemm-small.yaml", "doomed").string()}).code, 0);
  Outcome o = run_once({{"KFORGE_BIN", fake.string()}}, "2");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(slurp(tmp_.path() / "starts"), "started\nstarted\nstarted\n");  // the first run + 2 restarts
  EXPECT_NE(slurp(campaign_dir("doomed") / "FAILED").find("boom: disk on fire"), std::string::npos);
  Outcome status = kforge({"status"});
  EXPECT_NE(status.out.find("doomed: kforge run exited with code 1: kforge run: boom"), std::string::npos)
      << status.out;
}

TEST_F(Kforged, ChildExitingWithAConfigurationErrorIsNotRetried) {
  const fs::path fake = tmp_.path() / "config-error-kforge.sh";
  std::ofstream(fake) << "#!/bin/sh\necho started >> " << (tmp_.path() / "starts").string() << "\nexit 2\n";
  fs::permissions(fake, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  ASSERT_EQ(kforge({"submit", campaign("gemm-small.yaml", "misconfigured").string()}).code, 0);
  Outcome o = run_once({{"KFORGE_BIN", fake.string()}});
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_EQ(slurp(tmp_.path() / "starts"), "started\n");
  EXPECT_NE(slurp(campaign_dir("misconfigured") / "FAILED").find("not retried"), std::string::npos);
}
