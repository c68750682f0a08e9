// libslurm's side of libslurm_facts.hpp, slurm_errnos.hpp and compiled_slurm_version (built with libslurm only).
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include <string_view>

#include "libslurm_client.hpp"
#include "libslurm_facts.hpp"
#include "slurm_errnos.hpp"

namespace kforge::slurm {

static_assert(detail::kInvalidPartitionName == ESLURM_INVALID_PARTITION_NAME);
static_assert(detail::kInvalidJobId == ESLURM_INVALID_JOB_ID);
static_assert(detail::kAlreadyDone == ESLURM_ALREADY_DONE);
static_assert(detail::kAccountingPolicy == ESLURM_ACCOUNTING_POLICY);
static_assert(detail::kQosThreshold == ESLURM_QOS_THRES);
static_assert(detail::kInvalidArray == ESLURM_INVALID_ARRAY);

std::string compiled_slurm_version() {
  const unsigned minor = SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER);
  return std::to_string(SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER)) + "." + (minor < 10 ? "0" : "") +
         std::to_string(minor) + "." + std::to_string(SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
}

namespace detail {

std::unique_ptr<SlurmClient> make_libslurm_client() { return std::make_unique<LibSlurmClient>(); }

// Slurm's own codes (protocol 1000s, slurmctld 2000s, slurmd 4000s, ...) plus EAGAIN, which slurmctld
// returns when MaxJobCount is reached.
const std::vector<SlurmErrorText>& known_slurm_error_texts() {
  static const std::vector<SlurmErrorText> texts = [] {
    std::vector<int> numbers{kControllerBusy};
    for (int code = 1000; code < 6000; ++code) numbers.push_back(code);
    std::vector<SlurmErrorText> out;
    for (const int number : numbers) {
      const char* text = slurm_strerror(number);
      if (text == nullptr) continue;
      const std::string_view known(text);
      // Unassigned codes read "Unknown error NNNN"; very short texts would match by accident.
      if (known.size() < 12 || known.starts_with("Unknown error")) continue;
      out.push_back({number, std::string(known)});
    }
    return out;
  }();
  return texts;
}

}  // namespace detail
}  // namespace kforge::slurm
