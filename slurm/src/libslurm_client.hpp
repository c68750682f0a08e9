#pragma once
// SlurmClient over libslurm: RPCs straight to slurmctld, Slurm's own errno on failure.
// Works only against a controller of the release it was compiled for (the RPC protocol changes).

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::slurm {

class LibSlurmClient final : public SlurmClient {
 public:
  LibSlurmClient();  // slurm_init() once per process; reads SLURM_CONF

  JobId submit_array(const ArraySubmission& submission) override;
  std::vector<ArrayTaskState> array_task_states(JobId job) override;
  void cancel(JobId job) override;
  void cancel(JobId job, std::uint32_t task) override;
  SlurmLimits limits() override;
  std::uint32_t partition_node_count(const std::string& partition) override;
  std::vector<std::string> partition_node_gres(const std::string& partition) override;
  std::string version() override;
  [[nodiscard]] std::string backend_name() const override { return "libslurm"; }

 private:
  void kill(const std::string& job_id_text);
};

}  // namespace kforge::slurm
