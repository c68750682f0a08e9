#include "kforge/slurm/slurm_error.hpp"

#include <utility>

#include "slurm_errnos.hpp"

namespace kforge::slurm {

SlurmError::SlurmError(std::string context, std::string slurm_message, int slurm_errno)
    : std::runtime_error(context + ": " + slurm_message +
                         (slurm_errno != 0 ? " (slurm errno " + std::to_string(slurm_errno) + ")" : "")),
      context_(std::move(context)),
      slurm_message_(std::move(slurm_message)),
      slurm_errno_(slurm_errno) {}

bool SlurmError::is_back_pressure() const noexcept {
  switch (slurm_errno_) {
    case detail::kAccountingPolicy:  // MaxSubmitJobs, MaxJobs, size/time limits of an association or QOS
    case detail::kQosThreshold:      // a QOS usage threshold
    case detail::kInvalidArray:      // beyond MaxArraySize (or a malformed --array; ours never are)
    case detail::kControllerBusy:    // MaxJobCount reached: slurmctld holds as many jobs as allowed
      return true;
    default:
      return false;
  }
}

}  // namespace kforge::slurm
