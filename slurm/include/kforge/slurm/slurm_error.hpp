#pragma once
// A failure reported by Slurm, carrying Slurm's own message and error number.

#include <stdexcept>
#include <string>

namespace kforge::slurm {

class SlurmError : public std::runtime_error {
 public:
  // context: what kforge was doing ("slurm_submit_batch_job(...) at file:line", "sbatch ...").
  // slurm_message: Slurm's own text (slurm_strerror, or the tool's stderr).
  // slurm_errno: Slurm's error number (slurm/slurm_errno.h), 0 when the tool did not let us know it.
  SlurmError(std::string context, std::string slurm_message, int slurm_errno);

  [[nodiscard]] const std::string& context() const noexcept { return context_; }
  [[nodiscard]] const std::string& slurm_message() const noexcept { return slurm_message_; }
  [[nodiscard]] int slurm_errno() const noexcept { return slurm_errno_; }

  // True when the site refused the work because of a limit (accounting/QOS policy such as MaxSubmitJobs,
  // MaxArraySize, MaxJobCount, a busy controller): submitting less, or later, can succeed.
  [[nodiscard]] bool is_back_pressure() const noexcept;

 private:
  std::string context_;
  std::string slurm_message_;
  int slurm_errno_;
};

}  // namespace kforge::slurm
