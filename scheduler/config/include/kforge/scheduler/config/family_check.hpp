#pragma once
// The campaign against the schema of the family that will run it (kforge/kernels/family_schema.hpp), before
// anything is written: the part of `kforge validate` that needs the campaign and site files only. Every failure is
// a ConfigError (exit 2) at the key that is wrong.
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

// The (backend, family) pair exists; targets are ones the backend can evaluate (on this site's executor);
// every template parameter is in space.parameters with values of its type and range, and no other parameter
// is; evaluation.problem keys are the family's, in range, and the main problem's buffers fit
// evaluation.memory_limit_mb (host) or the target GPU's memory (cuda); baselines are the family's.
void check_campaign_against_family(const CampaignConfig& campaign, const SiteConfig& site);

}  // namespace kforge::scheduler
