#pragma once
// The reason recorded for an array task that ended badly (slurm_executor.cpp), which becomes the evidence of its
// candidates' records when no retry rescues it.
#include <string>

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::scheduler::slurm_detail {

// One paragraph: Slurm's state, what the job's own output says (or that it has none) and, with `postmortem`,
// the state of the nodes it ran on (which of them went away), the controller's record and the slurmd log lines
// about it. The post-mortem costs a few tool calls, so the executor asks it for the first failures only.
std::string describe_failed_task(kforge::slurm::JobId job, const kforge::slurm::ArrayTaskState& s,
                                 const std::string& output, bool postmortem);

}  // namespace kforge::scheduler::slurm_detail
