#pragma once
// The Slurm error numbers kforge acts on, by name, and what this build knows of Slurm's error texts. The numbers
// are Slurm's own (slurm/slurm_errno.h, stable across releases); with_libslurm.cpp checks them against that header
// when kforge links libslurm, so the command-line client can name them in a build without it.

#include <cerrno>
#include <string>
#include <vector>

namespace kforge::slurm::detail {

inline constexpr int kInvalidPartitionName = 2000;  // ESLURM_INVALID_PARTITION_NAME
inline constexpr int kInvalidJobId = 2017;          // ESLURM_INVALID_JOB_ID: the job is gone (or never was)
inline constexpr int kAlreadyDone = 2021;           // ESLURM_ALREADY_DONE: nothing left to cancel
inline constexpr int kAccountingPolicy = 2050;      // ESLURM_ACCOUNTING_POLICY: MaxSubmitJobs, MaxJobs, size/time
inline constexpr int kQosThreshold = 2074;          // ESLURM_QOS_THRES: a QOS usage threshold
inline constexpr int kInvalidArray = 2081;          // ESLURM_INVALID_ARRAY: beyond MaxArraySize (or malformed)
inline constexpr int kControllerBusy = EAGAIN;      // slurmctld holds MaxJobCount jobs

struct SlurmErrorText {
  int number;
  std::string text;  // slurm_strerror(number), as the tools print it
};

// Every error number whose text this build knows: all of Slurm's with libslurm (slurm_strerror), else the
// numbers above with the texts of Slurm 22.05 (without_libslurm.cpp).
const std::vector<SlurmErrorText>& known_slurm_error_texts();

}  // namespace kforge::slurm::detail
