#pragma once
// Access to the test cluster the Slurm tests run against (slurm/scripts/cluster-up.sh or with-cluster.sh).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kforge/slurm/slurm_client.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace kforge::slurm::testing {

// Why the cluster tests cannot run here, or nullopt when SLURM_CONF names a running kforge test cluster.
// Only a cluster named kforge-test is used, so a developer's SLURM_CONF for a real site is never touched.
std::optional<std::string> why_no_test_cluster();

// MaxArraySize as written in $SLURM_CONF (Slurm's default 1001 when absent).
std::uint32_t configured_max_array_size();

// Polls until `expected` tasks of the array are all finished (at most `timeout_s` seconds). Also records
// the most tasks ever seen RUNNING at once.
struct ArrayOutcome {
  std::vector<ArrayTaskState> tasks;
  std::size_t most_running_at_once = 0;
};
ArrayOutcome wait_for_array(SlurmClient& client, JobId job, std::size_t expected, int timeout_s = 90);

// Polls until the given task is RUNNING; false if it never was within timeout_s.
bool wait_until_running(SlurmClient& client, JobId job, std::uint32_t task, int timeout_s = 60);

// A fresh directory for a job's files, removed with the object.
using ScratchDir = test_support::ScratchDir;

}  // namespace kforge::slurm::testing
