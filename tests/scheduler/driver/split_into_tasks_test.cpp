// One island's candidates split into task manifests (generation_plan.hpp).
#include <gtest/gtest.h>

#include <set>

#include "../gemm_candidates.hpp"
#include "kforge/scheduler/driver/generation_plan.hpp"

using namespace kforge;
using namespace kforge::scheduler;
using kforge::scheduler::testing::gemm_candidates;

namespace {

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
  auto tasks = split_into_tasks(campaign(), site(), 3, 0, gemm_candidates(10), 5);
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
  for (const auto& t : tasks)
    for (const auto& c : t.candidates) ids.insert(c.id);
  EXPECT_EQ(ids.size(), 10u);
}
