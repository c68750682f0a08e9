#pragma once
// `kforge cancel DIR`: stops a campaign that a foreground `kforge run` drives, or whose Slurm arrays were left
// running (a driver stopped by SIGTERM). DIR/CANCELLED is written first, so that a driver (this one or a later
// one) knows the campaign was stopped on purpose; a running driver gets SIGTERM and cancels its own arrays;
// without a driver, the arrays of the generation in progress are cancelled here.
#include <iosfwd>

#include "kforge/scheduler/config/campaign_dir.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

// Throws std::runtime_error for a folder that is not a campaign directory. Reports what it did on `out`.
void cancel_campaign_dir(const CampaignDir& dir, std::ostream& out);

// Throws std::runtime_error naming DIR/CANCELLED and how to resume, when the campaign was cancelled.
void refuse_cancelled_campaign(const CampaignDir& dir);

}  // namespace kforge::scheduler
