// `kforge status` on a Slurm site: how far each array of the generation in progress has come.
#include "job_ledger.hpp"
#include "kforge/scheduler/executors/slurm_conf.hpp"
#include "kforge/scheduler/executors/slurm_executor.hpp"
#include "kforge/slurm/slurm_client.hpp"

namespace kforge::scheduler {

std::vector<ArrayProgress> slurm_array_progress(const SiteConfig& site, const CampaignDir& dir, int generation,
                                                std::string* unavailable) {
  std::vector<ArrayProgress> out;
  if (site.executor != "slurm") return out;
  const auto entries = slurm_detail::JobLedger(dir.generation_dir(generation) / "slurm").load();
  if (entries.empty()) return out;
  for (const auto& e : entries) {
    ArrayProgress p;
    p.job = std::to_string(e.job_id);
    p.target = e.target;
    p.tasks = static_cast<int>(e.tasks.size());
    out.push_back(p);
  }
  // libslurm ends the process (fatal) when it finds no configuration: look before asking it anything.
  std::string why = missing_slurm_conf(site);
  try {
    if (why.empty()) {
      auto client = kforge::slurm::make_slurm_client(site.slurm.client);
      for (auto& p : out) {
        const auto states = client->array_task_states(static_cast<kforge::slurm::JobId>(std::stoul(p.job)));
        p.known = !states.empty();
        for (const auto& s : states) {
          if (!s.is_finished()) {
            ++(s.state == "PENDING" ? p.pending : p.running);
          } else {
            ++(s.state == "COMPLETED" && s.exit_code == 0 ? p.done : p.failed);
          }
        }
      }
    }
  } catch (const std::exception& e) {
    why = std::string("the Slurm controller did not answer: ") + e.what();
  }
  if (!why.empty() && unavailable) *unavailable = why + " (what the campaign directory knows is shown)";
  return out;
}

}  // namespace kforge::scheduler
