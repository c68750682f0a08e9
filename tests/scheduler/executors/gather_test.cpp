// Gather: a generation's shards become records; a shard that is missing, half written or another task's never
// counts, and its candidates become infra_error records with the reason (gather.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "../gemm_candidates.hpp"
#include "kforge/jobs/archive.hpp"
#include "kforge/scheduler/executors/gather.hpp"

namespace fs = std::filesystem;
using namespace kforge;
using namespace kforge::scheduler;
using kforge::scheduler::testing::gemm_candidates;

namespace {

// Task 0 of generation 0 on island 0 ("host"), evaluating `candidates`, as the driver writes it.
std::vector<jobs::TaskManifest> one_task(std::vector<jobs::Candidate> candidates) {
  jobs::TaskManifest m;
  m.campaign = "t";
  m.family = "gemm";
  m.backend = "host";
  m.target = "host";
  m.candidates = std::move(candidates);
  m.shard_path = "../shards/0000.h5";
  return {m};
}

}  // namespace

class GatherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kforge-gather-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(CampaignDir(root_).shard(0, 0).parent_path());
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(GatherTest, MissingShardMakesEveryCandidateAnInfraErrorWithTheReason) {
  CampaignDir dir(root_);
  auto tasks = one_task(gemm_candidates(4));
  Gathered g = gather_shards(dir, tasks, {{0, "attempt 3 killed by signal Killed"}});
  ASSERT_EQ(g.records.size(), 4u);
  EXPECT_EQ(g.infra_errors, 4);
  for (const auto& r : g.records) {
    EXPECT_EQ(r.status, jobs::Status::infra_error);
    EXPECT_NE(r.evidence.find("attempt 3 killed by signal Killed"), std::string::npos) << r.evidence;
  }
}

TEST_F(GatherTest, ShardRecordsPassThroughAndACandidateMissingFromTheShardIsAnInfraError) {
  CampaignDir dir(root_);
  auto tasks = one_task(gemm_candidates(3));
  jobs::Shard shard;
  shard.provenance.campaign = "t";
  shard.island = tasks[0].island;  // a shard is only this task's when it says so (read_task_shard)
  shard.target = tasks[0].target;
  for (int i = 0; i < 2; ++i) {
    jobs::EvalRecord r;
    r.candidate_id = tasks[0].candidates[static_cast<size_t>(i)].id;
    r.status = jobs::Status::ok;
    r.time_median_ms = 1.0 + i;
    shard.records.push_back(r);
  }
  jobs::Baseline b;
  b.name = "reference";
  b.time_median_ms = 9.0;
  shard.baselines.push_back(b);
  jobs::write_shard(dir.shard(0, 0), shard);
  EXPECT_TRUE(shard_is_usable(dir, tasks[0]));

  Gathered g = gather_shards(dir, tasks, {});
  ASSERT_EQ(g.records.size(), 3u);
  EXPECT_EQ(g.records[0].status, jobs::Status::ok);
  EXPECT_EQ(g.records[1].time_median_ms, 2.0);
  EXPECT_EQ(g.records[2].status, jobs::Status::infra_error);
  EXPECT_EQ(g.records[2].candidate_id, tasks[0].candidates[2].id);
  EXPECT_EQ(g.infra_errors, 1);
  ASSERT_EQ(g.baselines.size(), 1u);
}

TEST_F(GatherTest, AShardOfAnotherTaskOrTargetIsNotUsableAndItsCandidatesAreInfraErrors) {
  CampaignDir dir(root_);
  auto tasks = one_task(gemm_candidates(2));
  jobs::Shard shard;
  shard.island = tasks[0].island;
  shard.target = tasks[0].target + "-other";
  jobs::EvalRecord r;
  r.candidate_id = tasks[0].candidates[0].id;
  r.status = jobs::Status::ok;
  shard.records.push_back(r);
  jobs::write_shard(dir.shard(0, 0), shard);
  EXPECT_FALSE(shard_is_usable(dir, tasks[0]));
  EXPECT_NE(shard_problem(dir, tasks[0]).find("but its manifest's task runs island"), std::string::npos)
      << shard_problem(dir, tasks[0]);
  Gathered g = gather_shards(dir, tasks, {});
  EXPECT_EQ(g.infra_errors, static_cast<int>(g.records.size()));
}

TEST_F(GatherTest, AHalfWrittenShardIsNotUsable) {
  CampaignDir dir(root_);
  auto tasks = one_task(gemm_candidates(1));
  {
    std::FILE* f = std::fopen(dir.shard(0, 0).c_str(), "w");
    std::fputs("\x89HDF\r\n", f);
    std::fclose(f);
  }
  EXPECT_FALSE(shard_is_usable(dir, tasks[0]));
}
