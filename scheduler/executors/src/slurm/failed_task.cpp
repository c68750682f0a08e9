#include "failed_task.hpp"

#include "kforge/scheduler/executors/log_excerpt.hpp"
#include "kforge/slurm/task_postmortem.hpp"

namespace kforge::scheduler::slurm_detail {

std::string describe_failed_task(kforge::slurm::JobId job, const kforge::slurm::ArrayTaskState& s,
                                 const std::string& output, bool postmortem) {
  const std::string id = std::to_string(job) + "_" + std::to_string(s.task_id);
  std::string text = "Slurm array task " + id + " " + s.state + " (" + s.reason + ", exit code " +
                     std::to_string(s.exit_code) + (s.signal ? ", signal " + std::to_string(s.signal) : "") +
                     (s.node.empty() ? "" : ", node " + s.node) + ")";
  if (s.state == "CANCELLED") text += "; cancelled outside kforge (scancel): a decision, not resubmitted";
  text += "; " + log_excerpt(output);
  if (!postmortem) return text;
  const auto pm = kforge::slurm::task_postmortem(job, s.task_id, s.node);
  // Which node of its allocation went away, if the controller knows yet (a dead node shows "*" or down).
  const std::string nodes = s.node.empty() ? "" : "; nodes now: " + kforge::slurm::node_states(s.node);
  return text + nodes + "; controller: " + pm.controller + "; " + pm.slurmd;
}

}  // namespace kforge::scheduler::slurm_detail
