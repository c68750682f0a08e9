// libslurm_facts.hpp, slurm_errnos.hpp and compiled_slurm_version in a build without libslurm: the command-line
// client is the only one, and it knows Slurm's texts of the errors kforge acts on.
#include <stdexcept>

#include "libslurm_facts.hpp"
#include "slurm_errnos.hpp"

namespace kforge::slurm {

std::string compiled_slurm_version() { return ""; }

namespace detail {

std::unique_ptr<SlurmClient> make_libslurm_client() {
  throw std::runtime_error(
      "this kforge was built without libslurm (CMake option KFORGE_WITH_LIBSLURM, or no libslurm-dev): use the "
      "Slurm client 'cli' or 'auto'");
}

// slurm_strerror's texts of Slurm 22.05 (src/common/slurm_errno.c); the tools print them after "error: ".
const std::vector<SlurmErrorText>& known_slurm_error_texts() {
  static const std::vector<SlurmErrorText> texts{
      {kInvalidPartitionName, "Invalid partition name specified"},
      {kInvalidJobId, "Invalid job id specified"},
      {kAlreadyDone, "Job/step already completing or completed"},
      {kAccountingPolicy, "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)"},
      {kQosThreshold, "Requested account has breached requested QOS usage threshold"},
      {kInvalidArray, "Invalid job array specification"},
      {kControllerBusy, "Resource temporarily unavailable"},
  };
  return texts;
}

}  // namespace detail
}  // namespace kforge::slurm
