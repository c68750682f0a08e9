#pragma once
// The Slurm executor: a generation's tasks become job arrays, one or more per island, in the partition and
// with the GRES the site names for the island's target. The ids of what was submitted are stored in the
// campaign directory (DIR/gNNNN/slurm/), so a driver killed at any instant re-attaches to its arrays.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kforge/scheduler/campaign_dir.hpp"
#include "kforge/scheduler/config.hpp"
#include "kforge/scheduler/executor.hpp"
#include "kforge/scheduler/report.hpp"

namespace kforge::scheduler {

// Throws std::runtime_error when kforge was built without libslurm, or when the Slurm client cannot start.
std::unique_ptr<Executor> make_slurm_executor(const SiteConfig& site, const std::string& campaign,
                                              const CampaignDir& dir, const std::filesystem::path& eval_binary);

// The arrays the Slurm executor submitted for one generation (DIR/gNNNN/slurm/jobs) with their tasks' states
// read from the controller now. Empty for a local site or a generation with nothing submitted. When the
// controller cannot be asked (no configuration, not reachable) the arrays come with their ledger figures only
// and *unavailable (when given) says why; it never throws for that and never lets libslurm end the process.
std::vector<ArrayProgress> slurm_array_progress(const SiteConfig& site, const CampaignDir& dir, int generation,
                                                std::string* unavailable = nullptr);

// The executor a site asks for: local or slurm.
std::unique_ptr<Executor> make_executor(const SiteConfig& site, const std::string& campaign, const CampaignDir& dir,
                                        const std::filesystem::path& eval_binary);

}  // namespace kforge::scheduler
