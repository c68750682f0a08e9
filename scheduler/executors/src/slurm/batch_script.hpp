#pragma once
// Renders slurm/templates/kforge-array.sbatch.in (compiled in) for one array of one island.
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler::slurm_detail {

struct ArrayJob {
  std::string campaign;
  int generation = 0;
  std::string target;               // island target; picks partition / gres from the site
  int index = 0;                    // this generation's k-th array
  int size = 0;                     // array tasks
  std::filesystem::path task_list;  // line i+1 = task number of array task i
  std::filesystem::path tasks_dir;  // DIR/gNNNN/tasks
  std::filesystem::path output;     // --output pattern
  std::filesystem::path eval_binary;
};

// "kf:<campaign>:g<generation>:<target>" (trimmed, see batch_script.cpp): what squeue shows an admin.
std::string job_name(const ArrayJob& job);
std::string comment(const ArrayJob& job);
std::string array_spec(const ArrayJob& job, const SlurmExecutorSpec& spec);  // "0-N%throttle"
// The launch line's command: "srun --mpi=pmix --kill-on-bad-exit=1 -n R" or "mpirun -np R".
std::string launch_command(const SlurmExecutorSpec& spec);
std::string launch_command(const SlurmExecutorSpec& spec, int ranks_per_task);  // of one target

std::string render_batch_script(const ArrayJob& job, const SlurmExecutorSpec& spec);

// --exclude for a retry: the nodes its tasks failed on (node lists such as "n[1-2]" of multi-node tasks
// expanded), as long as the partition keeps the nodes one task needs; "" when there is nothing to exclude or
// excluding would leave too few (Slurm would refuse the submission: "Requested node configuration is not
// available").
std::string exclude_list(const std::set<std::string>& failed_nodes, std::uint32_t partition_nodes,
                         std::uint32_t nodes_per_task = 1);

}  // namespace kforge::scheduler::slurm_detail
