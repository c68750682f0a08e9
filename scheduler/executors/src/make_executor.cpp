#include <stdexcept>

#include "kforge/scheduler/executors/slurm_executor.hpp"

namespace kforge::scheduler {

std::unique_ptr<Executor> make_executor(const SiteConfig& site, const std::string& campaign, const CampaignDir& dir,
                                        const std::filesystem::path& eval_binary) {
  if (site.executor == "slurm") return make_slurm_executor(site, campaign, dir, eval_binary);
  return std::make_unique<LocalExecutor>(site.local, eval_binary);
}

}  // namespace kforge::scheduler
