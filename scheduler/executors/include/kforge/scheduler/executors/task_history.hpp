#pragma once
// What happened to a task on its way to its shard that the shard cannot say: attempts that failed before kforge
// retried it, Slurm requeues after a node failed (executor.hpp: TaskEnd::history). Added to the evidence of the
// task's records, so that the archive tells why a record was measured on a second try, and after what.
#include <map>
#include <string>
#include <vector>

#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/record.hpp"

namespace kforge::scheduler {

// Appends "scheduler: <history>" as a line of its own to the evidence of every record of each task in
// `history` (task number -> text), matched by candidate id and target through the task manifests. The first
// line of the evidence, which names the cause of a failure, stays first.
void add_task_history(std::vector<jobs::EvalRecord>& records, const std::vector<jobs::TaskManifest>& tasks,
                      const std::map<int, std::string>& history);

}  // namespace kforge::scheduler
