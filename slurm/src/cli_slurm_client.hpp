#pragma once
// SlurmClient over the command-line tools (sbatch, squeue, scancel, scontrol) found on PATH.
// Slower than libslurm, but the tools always match the site's controller.

#include <map>
#include <string>

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::slurm {

class CliSlurmClient final : public SlurmClient {
 public:
  JobId submit_array(const ArraySubmission& submission) override;
  std::vector<ArrayTaskState> array_task_states(JobId job) override;
  void cancel(JobId job) override;
  void cancel(JobId job, std::uint32_t task) override;
  SlurmLimits limits() override;
  std::uint32_t partition_node_count(const std::string& partition) override;
  std::vector<std::string> partition_node_gres(const std::string& partition) override;
  std::string version() override;
  [[nodiscard]] std::string backend_name() const override { return "cli"; }

 private:
  void scancel(const std::string& job_id_text);
  static std::map<std::string, std::string> show_config();  // `scontrol show config` as key -> value
};

}  // namespace kforge::slurm
