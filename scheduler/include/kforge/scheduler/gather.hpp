#pragma once
// Gather: the shards of one generation's tasks become records. A missing shard is never silently skipped:
// its candidates are recorded as infra_error with the reason.
#include <map>
#include <string>
#include <vector>

#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/scheduler/campaign_dir.hpp"

namespace kforge::scheduler {

struct Gathered {
  std::vector<jobs::EvalRecord> records;   // exactly one per candidate of every manifest, in manifest order
  std::vector<jobs::Baseline> baselines;
  int infra_errors = 0;
};

// failed_tasks: task -> why its last attempt failed (used as the infra_error reason when its shard is unusable).
Gathered gather_shards(const CampaignDir& dir, const std::vector<jobs::TaskManifest>& tasks,
                       const std::map<int, std::string>& failed_tasks);

// True when the task's shard exists and reads back whole.
bool shard_is_usable(const CampaignDir& dir, const jobs::TaskManifest& task);

jobs::EvalRecord infra_error_record(const jobs::Candidate& c, const jobs::TaskManifest& task, const std::string& why);

}  // namespace kforge::scheduler
