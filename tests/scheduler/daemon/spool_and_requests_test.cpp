// The spool's pieces without a daemon: request files, names, the one-daemon lock, log lines, status of a spool.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/daemon/client.hpp"
#include "kforge/scheduler/daemon/log.hpp"
#include "kforge/scheduler/daemon/request.hpp"
#include "kforge/scheduler/daemon/spool.hpp"
#include "process_helpers.hpp"

using namespace kforge::scheduler;
using namespace kforge::scheduler::daemon;
using kforge::test::TempDir;
namespace fs = std::filesystem;

TEST(Request, RoundTripKeepsTextsByteForByteEvenWhenTheyLookLikeTheProtocol) {
  Request r{RequestKind::submit, "gemm-x", "", "campaign:\n  name: gemm-x\nsite-bytes 3\n", "no newline at the end"};
  const Request back = decode_request(encode_request(r), "r.req");
  EXPECT_EQ(back.kind, RequestKind::submit);
  EXPECT_EQ(back.name, "gemm-x");
  EXPECT_EQ(back.campaign_text, r.campaign_text);
  EXPECT_EQ(back.site_text, r.site_text);
  const Request cancel = decode_request(encode_request(Request{RequestKind::cancel, "gemm-x", "", "", ""}), "c.req");
  EXPECT_EQ(cancel.kind, RequestKind::cancel);
  EXPECT_EQ(cancel.name, "gemm-x");
  EXPECT_EQ(cancel.owner, "");
  const Request admin = decode_request(encode_request(Request{RequestKind::cancel, "x", "alice", "", ""}), "a.req");
  EXPECT_EQ(admin.owner, "alice");
}

TEST(Request, TruncatedOrForeignFilesAreRejectedNamingTheFile) {
  std::string text = encode_request(Request{RequestKind::submit, "a", "", "0123456789", "site"});
  try {
    decode_request(text.substr(0, text.size() - 8), "/spool/requests/x.req");
    FAIL() << "a truncated request was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/spool/requests/x.req: malformed kforge request"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(decode_request("hello\n", "y.req"), std::runtime_error);
  EXPECT_THROW(decode_request("kforge-request 1\nkind submit\nname ../etc\n", "z.req"), std::runtime_error);
  EXPECT_THROW(decode_request("kforge-request 1\nkind cancel\nname x\nowner ../root\n", "o.req"), std::runtime_error);
}

TEST(Request, PendingRequestsAreOldestFirstAndSkipUnfinishedTempFiles) {
  TempDir tmp;
  Spool spool(tmp.path());
  fs::create_directories(spool.requests_dir());
  const fs::path first = write_request(spool, Request{RequestKind::cancel, "one", "", "", ""});
  const fs::path second = write_request(spool, Request{RequestKind::cancel, "two", "", "", ""});
  EXPECT_EQ(fs::status(first).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  kforge::jobs::write_text_file_atomically(spool.requests_dir() / "ignored.txt", "x");
  std::ofstream(spool.requests_dir() / "0-late.req.tmp") << "half";
  EXPECT_EQ(pending_requests(spool), (std::vector<fs::path>{first, second}));
}

TEST(Request, TheSubmitterIsTheFilesOwnerAndLinksOrFifosAreNotRequests) {
  TempDir tmp;
  Spool spool(tmp.path());
  fs::create_directories(spool.requests_dir());
  const fs::path file = write_request(spool, Request{RequestKind::cancel, "one", "", "", ""});
  EXPECT_EQ(receive_request(file).submitter, ::geteuid());
  ASSERT_EQ(::chown(file.c_str(), 4242, 4242), 0);  // what a user with uid 4242 writing it would leave
  EXPECT_EQ(receive_request(file).submitter, 4242u);
  EXPECT_EQ(receive_request(file).request.name, "one");
  auto rejected = [](const fs::path& p, const std::string& why) {
    try {
      receive_request(p);
      ADD_FAILURE() << p << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  fs::create_symlink(file, spool.requests_dir() / "link.req");
  rejected(spool.requests_dir() / "link.req", "cannot open");
  ASSERT_EQ(::link(file.c_str(), (spool.requests_dir() / "hard.req").c_str()), 0);
  rejected(spool.requests_dir() / "hard.req", "hard links");
  ASSERT_EQ(::mkfifo((spool.requests_dir() / "fifo.req").c_str(), 0600), 0);
  rejected(spool.requests_dir() / "fifo.req", "not a regular file");
}

TEST(Spool, CampaignNamesMustBeSafeFolderNames) {
  EXPECT_TRUE(is_valid_campaign_name("gemm-small_v2.1"));
  EXPECT_FALSE(is_valid_campaign_name(""));
  EXPECT_FALSE(is_valid_campaign_name(".."));
  EXPECT_FALSE(is_valid_campaign_name(".hidden"));
  EXPECT_FALSE(is_valid_campaign_name("a/b"));
  EXPECT_FALSE(is_valid_campaign_name("a b"));
}

TEST(Spool, OnlyOneLockHolderAndTheRefusalNamesTheHoldersPid) {
  TempDir tmp;
  Spool spool(tmp.path());
  spool.create_layout(SpoolPolicy{});
  EXPECT_FALSE(spool.daemon_is_running());
  SpoolLock held(spool);
  EXPECT_TRUE(spool.daemon_is_running());
  try {
    SpoolLock second(spool);
    FAIL() << "a second lock on the same spool was granted";
  } catch (const SpoolError& e) {
    EXPECT_NE(std::string(e.what()).find("another kforged (pid " + std::to_string(::getpid()) + ")"), std::string::npos)
        << e.what();
  }
}

TEST(Log, LinesCarryLevelAndScopeAndUnderJournaldASyslogPriorityInsteadOfATime) {
  std::ostringstream plain, journal;
  Log(plain, false).warning("gemm-small", "restart 1/5");
  Log(journal, true).error("kforged", "spool held");
  EXPECT_NE(plain.str().find("Z warning [gemm-small] restart 1/5\n"), std::string::npos) << plain.str();
  EXPECT_EQ(journal.str(), "<3>error [kforged] spool held\n");
}

TEST(SpoolStatus, PendingSubmitsAreQueuedCancelOfAnUnknownNameIsRefusedAndRootMayNotSubmit) {
  ASSERT_EQ(::geteuid(), 0u) << "the daemon tests run as root (they create users)";
  TempDir tmp;
  Spool spool(tmp.path() / "spool");
  const fs::path file = fs::path(KFORGE_SOURCE_DIR) / "tests/integration/data/gemm-small.yaml";
  const CampaignConfig campaign = load_campaign(file);
  try {
    submit_campaign(spool, campaign, embedded_default_site());
    FAIL() << "root's submit was accepted";
  } catch (const RequestRefused& e) {
    EXPECT_NE(std::string(e.what()).find("campaigns never run as root"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(spool.root()));
  // A request file written by hand (as `kforge submit` of a user would): pending, so queued, and cancellable.
  write_request(spool, Request{RequestKind::submit, "gemm-small", "", campaign.text, "site: {}\n"});
  const auto entries = read_spool_status(spool);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].owner, "root");
  EXPECT_EQ(entries[0].campaign, "gemm-small");
  EXPECT_EQ(entries[0].state, CampaignState::queued);
  EXPECT_EQ(entries[0].generations_planned, 2);
  EXPECT_EQ(read_campaign_status(spool, "gemm-small").state, CampaignState::queued);
  EXPECT_NO_THROW(cancel_campaign(spool, "gemm-small"));  // pending submit: known
  EXPECT_THROW(cancel_campaign(spool, "other"), RequestRefused);
  EXPECT_THROW(read_campaign_status(spool, "other"), RequestRefused);
}

TEST(SpoolStatus, StateComesFromMarkersAndJobsFromTheSlurmLedgerOfTheGenerationInProgress) {
  TempDir tmp;
  Spool spool(tmp.path());
  spool.create_layout(SpoolPolicy{});
  const std::string text = kforge::test::slurp(fs::path(KFORGE_SOURCE_DIR) / "tests/integration/data/gemm-small.yaml");
  for (const std::string name : {"gemm-small", "other"}) {
    std::string t = text;
    t.replace(t.find("name: gemm-small"), 16, "name: " + name);
    fs::create_directories(spool.campaign({"alice", name}).generation_dir(0) / "slurm");
    kforge::jobs::write_text_file_atomically(spool.campaign({"alice", name}).campaign_config(), t);
  }
  kforge::jobs::write_text_file_atomically(spool.campaign({"alice", "gemm-small"}).generation_dir(0) / "slurm" / "jobs",
                                           "4711 0 hopper\n4712 1 blackwell\n");
  kforge::jobs::write_text_file_atomically(spool.failed_marker({"alice", "other"}),
                                           "kforge run exited with code 1: boom\n");

  const auto entries = read_spool_status(spool);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].state, CampaignState::queued);  // no daemon drives it (its lock is free)
  ASSERT_EQ(entries[0].jobs.size(), 2u);
  EXPECT_EQ(entries[0].jobs[1].job, "4712");
  EXPECT_EQ(entries[0].jobs[1].target, "blackwell");
  EXPECT_EQ(entries[1].state, CampaignState::failed);
  EXPECT_EQ(entries[1].reason, "kforge run exited with code 1: boom");
  std::ostringstream table;
  write_spool_table(table, entries);
  EXPECT_NE(table.str().find("4711:hopper,4712:blackwell"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("other: kforge run exited with code 1: boom\n"), std::string::npos) << table.str();

  kforge::jobs::write_text_file_atomically(spool.cancelled_marker({"alice", "gemm-small"}), "cancelled\n");
  EXPECT_EQ(read_spool_status(spool)[0].state, CampaignState::cancelled);
  // One schema for the list and for one campaign, versioned; the state names are the list's.
  std::ostringstream json;
  write_spool_json(json, spool, {read_spool_status(spool)[0]});
  EXPECT_EQ(json.str().rfind("{\"schema_version\":1,\"context\":", 0), 0u) << json.str();
  EXPECT_NE(json.str().find(R"("owner":"alice","campaign":"gemm-small","state":"cancelled")"), std::string::npos)
      << json.str();
}
