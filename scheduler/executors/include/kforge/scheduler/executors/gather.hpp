#pragma once
// Gather: the shards of one generation's tasks become records. A missing shard is never silently skipped:
// its candidates are recorded as infra_error with the reason.
#include <map>
#include <string>
#include <vector>

#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {

struct Gathered {
  std::vector<jobs::EvalRecord> records;  // exactly one per candidate of every manifest, in manifest order
  std::vector<jobs::Baseline> baselines;
  int infra_errors = 0;
};

// failed_tasks: task -> why its last attempt failed (used as the infra_error reason when its shard is unusable).
Gathered gather_shards(const CampaignDir& dir, const std::vector<jobs::TaskManifest>& tasks,
                       const std::map<int, std::string>& failed_tasks);

// The task's shard, refused (std::runtime_error naming the file) unless it reads back whole and is this task's:
// this campaign's id, the manifest's generation, task, island and target (docs/archive-schema.md).
jobs::Shard read_task_shard(const CampaignDir& dir, const jobs::TaskManifest& task);

// True when read_task_shard accepts the task's shard: only then is the task finished.
bool shard_is_usable(const CampaignDir& dir, const jobs::TaskManifest& task);
// Why an existing shard of the task is refused (read_task_shard's message, naming the file); "" when the shard
// is usable or absent.
std::string shard_problem(const CampaignDir& dir, const jobs::TaskManifest& task);

jobs::EvalRecord infra_error_record(const jobs::Candidate& c, const jobs::TaskManifest& task, const std::string& why);

}  // namespace kforge::scheduler
