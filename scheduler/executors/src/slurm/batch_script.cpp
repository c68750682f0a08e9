#include "batch_script.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "kforge/embedded_sbatch.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"
#include "node_list.hpp"

namespace kforge::scheduler::slurm_detail {

namespace {

void replace_all(std::string& text, const std::string& key, const std::string& value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
}

// Single-quoted for bash: the value can hold anything but stays one word.
std::string shell_quote(const std::string& v) {
  std::string out = "'";
  for (char c : v) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string optional_lines(const ArrayJob& job, const SlurmExecutorSpec& spec) {
  const SlurmTargetSpec& t = spec.targets.at(job.target);
  std::string out = "#SBATCH --partition=" + t.partition + "\n";
  if (!t.gres.empty()) out += "#SBATCH --gres=" + t.gres + "\n";
  if (!t.constraint.empty()) out += "#SBATCH --constraint=" + t.constraint + "\n";
  if (!spec.account_of(job.target).empty()) out += "#SBATCH --account=" + spec.account_of(job.target) + "\n";
  if (!spec.qos_of(job.target).empty()) out += "#SBATCH --qos=" + spec.qos_of(job.target) + "\n";
  if (!spec.reservation.empty()) out += "#SBATCH --reservation=" + spec.reservation + "\n";
  if (!t.mem.empty()) out += "#SBATCH --mem=" + t.mem + "\n";
  if (t.exclusive) out += "#SBATCH --exclusive\n";
  for (const auto& option : t.extra_sbatch_options) out += "#SBATCH " + option + "\n";
  out += "#SBATCH --wckey=kforge\n";
  return out;
}

}  // namespace

// "kf:<campaign>:g<generation>:<target>", the campaign cut to 16 and the target to 10 characters so that the
// whole name stays readable in `squeue -o %.40j` and its start in squeue's default 8-column NAME; the
// comment (below) and DIR/gNNNN/slurm/jobs keep the full names.
std::string job_name(const ArrayJob& job) {
  // The confirmation's rounds (kConfirmStage) are named "confirm" where a generation's tasks say gN.
  const std::string stage = job.generation == kConfirmStage ? "confirm" : "g" + std::to_string(job.generation);
  return "kf:" + job.campaign.substr(0, 16) + ":" + stage + ":" + job.target.substr(0, 10);
}

std::string comment(const ArrayJob& job) {
  return "kforge campaign=" + job.campaign + " generation=" + std::to_string(job.generation) + " island=" + job.target +
         " array=" + std::to_string(job.index);
}

std::string array_spec(const ArrayJob& job, const SlurmExecutorSpec& spec) {
  if (job.size < 1) throw std::invalid_argument("an array job needs at least one task");
  return "0-" + std::to_string(job.size - 1) + "%" + std::to_string(std::max(1, spec.max_concurrent_tasks));
}

std::string launch_command(const SlurmExecutorSpec& spec) { return launch_command(spec, spec.ranks_per_task); }

std::string launch_command(const SlurmExecutorSpec& spec, int ranks_per_task) {
  const std::string ranks = std::to_string(ranks_per_task);
  if (spec.mpi_launch == "mpirun") return "mpirun -np " + ranks;
  // --kill-on-bad-exit: a rank that dies (a crash, a node lost under it) ends the step, so the task fails and is
  // retried now; without it the other ranks wait for the dead one until the task's time limit.
  return "srun --mpi=" + spec.srun_mpi + " --kill-on-bad-exit=1 -n " + ranks;
}

std::string exclude_list(const std::set<std::string>& failed_nodes, std::uint32_t partition_nodes,
                         std::uint32_t nodes_per_task) {
  std::set<std::string> nodes;
  for (const auto& list : failed_nodes) {
    for (auto& node : expand_node_list(list)) nodes.insert(std::move(node));
  }
  if (nodes.empty() || nodes.size() + std::max<std::uint32_t>(1, nodes_per_task) > partition_nodes) return "";
  std::string list;
  for (const auto& node : nodes) list += (list.empty() ? "" : ",") + node;
  return list;
}

std::string render_batch_script(const ArrayJob& job, const SlurmExecutorSpec& spec) {
  std::string text = embedded::kArraySbatchTemplate;
  std::string modules, environment;
  for (const auto& m : spec.modules) modules += "module load " + m + "\n";
  for (const auto& [k, v] : spec.environment) environment += "export " + k + "=" + shell_quote(v) + "\n";
  replace_all(text, "@OPTIONAL_SBATCH@", optional_lines(job, spec));
  replace_all(text, "@MODULE_LOADS@", modules);
  replace_all(text, "@ENVIRONMENT@", environment);
  replace_all(text, "@JOB_NAME@", job_name(job));
  replace_all(text, "@COMMENT@", "\"" + comment(job) + "\"");
  const SlurmTargetSpec& t = spec.targets.at(job.target);
  const int ranks = spec.ranks_per_task_of(job.target);
  replace_all(text, "@NODES@", std::to_string(std::max(1, t.nodes)));
  replace_all(text, "@RANKS@", std::to_string(ranks));
  replace_all(text, "@RANKS_PER_NODE@", std::to_string(ranks / std::max(1, t.nodes)));
  replace_all(text, "@CPUS_PER_RANK@", std::to_string(spec.cpus_per_rank_of(job.target)));
  replace_all(text, "@TIME_LIMIT_MIN@", std::to_string(spec.time_limit_min_of(job.target)));
  replace_all(text, "@ARRAY@", array_spec(job, spec));
  replace_all(text, "@OUTPUT@", job.output.string());
  replace_all(text, "@TASK_LIST@", job.task_list.string());
  replace_all(text, "@TASKS_DIR@", job.tasks_dir.string());
  replace_all(text, "@LAUNCH@", launch_command(spec, ranks));
  replace_all(text, "@EVAL_BINARY@", job.eval_binary.string());
  return text;
}

}  // namespace kforge::scheduler::slurm_detail
