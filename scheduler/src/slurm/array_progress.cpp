// `kforge status` on a Slurm site: how far each array of the generation in progress has come.
#include "job_ledger.hpp"
#include "kforge/scheduler/slurm_executor.hpp"
#include "kforge/slurm/slurm_client.hpp"

namespace kforge::scheduler {

std::vector<ArrayProgress> slurm_array_progress(const SiteConfig& site, const CampaignDir& dir, int generation) {
  std::vector<ArrayProgress> out;
  if (site.executor != "slurm") return out;
  const auto entries = slurm_detail::JobLedger(dir.generation_dir(generation) / "slurm").load();
  if (entries.empty()) return out;
  auto client = kforge::slurm::make_slurm_client(site.slurm.client);
  for (const auto& e : entries) {
    ArrayProgress p;
    p.job = std::to_string(e.job_id);
    p.target = e.target;
    p.tasks = static_cast<int>(e.tasks.size());
    const auto states = client->array_task_states(e.job_id);
    p.known = !states.empty();
    for (const auto& s : states) {
      if (!s.is_finished()) {
        ++(s.state == "PENDING" ? p.pending : p.running);
      } else {
        ++(s.state == "COMPLETED" && s.exit_code == 0 ? p.done : p.failed);
      }
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace kforge::scheduler
