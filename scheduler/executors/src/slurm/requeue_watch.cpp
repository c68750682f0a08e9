#include "requeue_watch.hpp"

namespace kforge::scheduler::slurm_detail {

std::optional<Requeue> RequeueWatch::observe(std::uint32_t job, const kforge::slurm::ArrayTaskState& s) {
  auto& ran_on = ran_on_[{job, s.task_id}];
  // Only RUNNING counts: while COMPLETING, Slurm drops nodes from the list as each one finishes.
  const bool on_nodes = s.state == "RUNNING" && !s.node.empty();
  const bool queued_again = s.state == "PENDING" || s.state.rfind("REQUEUE", 0) == 0;
  std::optional<Requeue> out;
  if (!ran_on.empty() && (queued_again || (on_nodes && s.node != ran_on))) {
    out = Requeue{ran_on, "Slurm requeued array task " + std::to_string(job) + "_" + std::to_string(s.task_id) +
                              ", which ran on " + ran_on + " (now " + s.state +
                              (s.state == "RUNNING" ? " on " + s.node : ", reason " + s.reason) + ")"};
    ran_on.clear();
  }
  if (on_nodes) ran_on = s.node;
  return out;
}

}  // namespace kforge::scheduler::slurm_detail
