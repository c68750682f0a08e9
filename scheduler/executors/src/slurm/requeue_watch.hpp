#pragma once
// Slurm requeues a batch array task by itself when a node of its allocation fails (kforge submits with
// --requeue): the task, seen running, is back in the queue and later runs again, elsewhere. Its end state says
// nothing of that, and its output file starts over, so the executor watches each task's states between polls
// and keeps what it saw for the evidence of the task's records.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::scheduler::slurm_detail {

struct Requeue {
  std::string nodes;  // the node list the task ran on before it was requeued
  std::string text;   // "Slurm requeued array task 812_3, which ran on n[1-2] (now PENDING, reason None)"
};

class RequeueWatch {
 public:
  // One poll's view of array task `s` of array job `job`. A task last seen RUNNING on some nodes that is now
  // pending (or in a REQUEUE* state), or running on other nodes, was requeued: that is returned.
  std::optional<Requeue> observe(std::uint32_t job, const kforge::slurm::ArrayTaskState& s);

 private:
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> ran_on_;  // (job, task) -> node list
};

}  // namespace kforge::scheduler::slurm_detail
