#pragma once
// The Slurm executor: a generation's tasks become job arrays, one or more per island, in the partition and
// with the GRES the site names for the island's target. The ids of what was submitted are stored in the
// campaign directory (DIR/gNNNN/slurm/), so a driver killed at any instant re-attaches to its arrays.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kforge/scheduler/config/campaign_dir.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/executors/executor.hpp"

namespace kforge::scheduler {

// One Slurm array of the generation in progress, as the controller sees it now.
struct ArrayProgress {
  std::string job;     // array job id
  std::string target;  // island
  int tasks = 0;
  int pending = 0, running = 0, done = 0, failed = 0;  // done = COMPLETED; failed = every other end state
  bool known = true;  // false once slurmctld has forgotten the job (MinJobAge): the shards tell the rest
};

// Throws std::runtime_error when the Slurm client cannot start (client: libslurm in a build without libslurm).
std::unique_ptr<Executor> make_slurm_executor(const SiteConfig& site, const std::string& campaign,
                                              const CampaignDir& dir, const std::filesystem::path& eval_binary);

// The arrays the Slurm executor submitted for one generation (DIR/gNNNN/slurm/jobs) with their tasks' states
// read from the controller now. Empty for a local site or a generation with nothing submitted. When the
// controller cannot be asked (no configuration, not reachable) the arrays come with their ledger figures only
// and *unavailable (when given) says why; it never throws for that and never lets libslurm end the process.
std::vector<ArrayProgress> slurm_array_progress(const SiteConfig& site, const CampaignDir& dir, int generation,
                                                std::string* unavailable = nullptr);

// Cancels the arrays the Slurm executor recorded for generation `generation` (DIR/gNNNN/slurm/jobs), each whole;
// returns their ids. Nothing for a local site.
std::vector<std::string> cancel_recorded_arrays(const SiteConfig& site, const CampaignDir& dir, int generation);

// The executor a site asks for: local or slurm.
std::unique_ptr<Executor> make_executor(const SiteConfig& site, const std::string& campaign, const CampaignDir& dir,
                                        const std::filesystem::path& eval_binary);

}  // namespace kforge::scheduler
