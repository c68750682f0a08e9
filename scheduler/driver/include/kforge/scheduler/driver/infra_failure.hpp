#pragma once
// A generation whose records failed for infrastructure reasons (tasks that never ran, missing shards, no GPU)
// says nothing about its candidates: breeding from it would only resubmit the same failure forever. The
// runner stops the campaign instead, with one paragraph a person can act on (exit code 3, docs/cli.md).
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/jobs/manifest.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"
#include "kforge/scheduler/executors/gather.hpp"

namespace kforge::scheduler {

struct InfrastructureFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The diagnosis when at least `stop_share` of the generation's records are infra_error, else nullopt.
// failed_tasks: task -> why its last attempt failed (CampaignRunner::run_missing_tasks).
std::optional<std::string> infrastructure_diagnosis(const CampaignDir& dir, int generation,
                                                    const std::vector<jobs::TaskManifest>& tasks,
                                                    const std::map<int, std::string>& failed_tasks,
                                                    const Gathered& gathered, double stop_share);

}  // namespace kforge::scheduler
