// cancel_recorded_arrays (slurm_executor.hpp): the arrays of the ledger, each cancelled whole.
#include "job_ledger.hpp"
#include "kforge/scheduler/executors/slurm_executor.hpp"
#include "kforge/slurm/slurm_client.hpp"

namespace kforge::scheduler {

std::vector<std::string> cancel_recorded_arrays(const SiteConfig& site, const CampaignDir& dir, int generation) {
  std::vector<std::string> cancelled;
  if (site.executor != "slurm") return cancelled;
  const auto entries = slurm_detail::JobLedger(dir.generation_dir(generation) / "slurm").load();
  if (entries.empty()) return cancelled;
  auto client = kforge::slurm::make_slurm_client(site.slurm.client);
  for (const auto& e : entries) {
    client->cancel(e.job_id);  // one that already ended needs no cancelling and is no error
    cancelled.push_back(std::to_string(e.job_id));
  }
  return cancelled;
}

}  // namespace kforge::scheduler
