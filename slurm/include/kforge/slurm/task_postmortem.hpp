#pragma once
// What Slurm itself says about an array task that ended badly, for the evidence of its records: the
// controller's view (scontrol, or sacct once the controller has forgotten the job) and, for launch failures,
// the lines of the node's slurmd log that name the task's job (readable when the log is on this machine).
// Everything here goes through the command-line tools and never throws: a missing piece is reported as such.
#include <cstdint>
#include <string>
#include <vector>

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::slurm {

struct TaskPostmortem {
  std::string controller;  // "JobId=812 JobState=FAILED Reason=NonZeroExitCode ExitCode=1:0 NodeList=n1 ..."
  std::string slurmd;      // slurmd log lines about that job, or why there are none
};

TaskPostmortem task_postmortem(JobId array_job, std::uint32_t task, const std::string& node);

// A node as the controller reports it now (sinfo): state "mixed", "down*" ("*": not responding), ...
struct NodeState {
  std::string name;
  std::string state;
  std::string reason;  // "Not responding", an admin's drain reason; empty when none
  // Responding and neither down, drained, failing nor otherwise out of service.
  [[nodiscard]] bool usable() const;
};

// Each node of a node list ("n[1-2]"), once; empty when sinfo could not tell, and then *why says why.
std::vector<NodeState> query_node_states(const std::string& node_list, std::string* why = nullptr);

// The same as one line: "n1 mixed; n2 down* (Not responding)", or why it could not be asked. Says which node
// of a requeued or failed multi-node task went away.
std::string node_states(const std::string& node_list);

}  // namespace kforge::slurm
