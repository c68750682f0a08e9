#include <stdexcept>

#include "kforge/scheduler/slurm_executor.hpp"

namespace kforge::scheduler {

#ifndef KFORGE_HAVE_SLURM
std::vector<ArrayProgress> slurm_array_progress(const SiteConfig&, const CampaignDir&, int, std::string*) { return {}; }

std::unique_ptr<Executor> make_slurm_executor(const SiteConfig& site, const std::string&, const CampaignDir&,
                                              const std::filesystem::path&) {
  throw std::runtime_error(site.file.string() + ": executor slurm, but this kforge was built without libslurm "
                           "(install libslurm-dev and rebuild)");
}
#endif

std::unique_ptr<Executor> make_executor(const SiteConfig& site, const std::string& campaign, const CampaignDir& dir,
                                        const std::filesystem::path& eval_binary) {
  if (site.executor == "slurm") return make_slurm_executor(site, campaign, dir, eval_binary);
  return std::make_unique<LocalExecutor>(site.local, eval_binary);
}

}  // namespace kforge::scheduler
