#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "kforge/jobs/archive.hpp"
#include "kforge/scheduler/gather.hpp"
#include "kforge/scheduler/generation_plan.hpp"

namespace fs = std::filesystem;
using namespace kforge;
using namespace kforge::scheduler;

namespace {

std::vector<jobs::Candidate> candidates(int n) {
  std::vector<jobs::Candidate> out;
  for (int i = 0; i < n; ++i) {
    jobs::Candidate c;
    c.family = "gemm";
    c.backend = "host";
    c.genome.params["MC"] = std::int64_t{i};
    jobs::assign_id(c);
    out.push_back(c);
  }
  return out;
}

CampaignConfig campaign() {
  CampaignConfig c;
  c.name = "t";
  c.family = "gemm";
  c.backend = "host";
  c.targets = {"host"};
  c.candidates_per_rank = 2;
  return c;
}

SiteConfig site() {
  SiteConfig s;
  s.local.ranks_per_task = 2;
  return s;
}

}  // namespace

TEST(SplitIntoTasks, ChunksByRanksTimesCandidatesPerRankAndNumbersTasks) {
  auto tasks = split_into_tasks(campaign(), site(), 3, 0, candidates(10), 5);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[0].candidates.size(), 4u);
  EXPECT_EQ(tasks[2].candidates.size(), 2u);
  EXPECT_EQ(tasks[0].task, 5);
  EXPECT_EQ(tasks[2].task, 7);
  EXPECT_EQ(tasks[1].shard_path, "../shards/0006.h5");
  EXPECT_EQ(tasks[1].generation, 3);
  EXPECT_EQ(tasks[1].target, "host");
  EXPECT_NE(tasks[0].seed, tasks[1].seed);
  std::set<std::string> ids;
  for (const auto& t : tasks) for (const auto& c : t.candidates) ids.insert(c.id);
  EXPECT_EQ(ids.size(), 10u);
}

TEST(MixSeed, DiffersAcrossGenerationsAndIslandsAndIsStable) {
  EXPECT_EQ(mix_seed(1, 2, 3), mix_seed(1, 2, 3));
  EXPECT_NE(mix_seed(1, 2, 3), mix_seed(1, 3, 2));
  EXPECT_NE(mix_seed(1, 2, 3), mix_seed(2, 2, 3));
}

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
  auto tasks = split_into_tasks(campaign(), site(), 0, 0, candidates(4), 0);
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
  auto tasks = split_into_tasks(campaign(), site(), 0, 0, candidates(3), 0);
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
  auto tasks = split_into_tasks(campaign(), site(), 0, 0, candidates(2), 0);
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
  auto tasks = split_into_tasks(campaign(), site(), 0, 0, candidates(1), 0);
  {
    std::FILE* f = std::fopen(dir.shard(0, 0).c_str(), "w");
    std::fputs("\x89HDF\r\n", f);
    std::fclose(f);
  }
  EXPECT_FALSE(shard_is_usable(dir, tasks[0]));
}
