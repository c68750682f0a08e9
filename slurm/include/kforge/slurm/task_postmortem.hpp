#pragma once
// What Slurm itself says about an array task that ended badly, for the evidence of its records: the
// controller's view (scontrol, or sacct once the controller has forgotten the job) and, for launch failures,
// the lines of the node's slurmd log that name the task's job (readable when the log is on this machine).
// Everything here goes through the command-line tools and never throws: a missing piece is reported as such.
#include <cstdint>
#include <string>

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::slurm {

struct TaskPostmortem {
  std::string controller;  // "JobId=812 JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0 NodeList=n1 ..."
  std::string slurmd;      // slurmd log lines about that job, or why there are none
};

TaskPostmortem task_postmortem(JobId array_job, std::uint32_t task, const std::string& node);

}  // namespace kforge::slurm
