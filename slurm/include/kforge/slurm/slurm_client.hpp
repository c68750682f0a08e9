#pragma once
// The Slurm adapter: submit a generation's tasks as one job array, watch its tasks, cancel them.
//
// Two backends share this interface: libslurm (RPCs straight to slurmctld; fast, exact errno) and the
// command-line tools (sbatch/squeue/scancel/scontrol; works whatever libslurm version the controller
// runs). make_slurm_client("auto") picks libslurm only when it was built for the controller's release.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kforge/slurm/slurm_error.hpp"

namespace kforge::slurm {

using JobId = std::uint32_t;

// One `sbatch --array` submission. Empty strings and unset optionals mean "Slurm's default".
struct ArraySubmission {
  std::string name;                                 // --job-name
  std::string script;                               // the whole batch script, starting with "#!"
  std::string array;                                // --array, e.g. "0-99%8" (indices, optional %throttle)
  std::string partition;                            // --partition
  std::string account;                              // --account
  std::string qos;                                  // --qos
  std::string reservation;                          // --reservation
  std::string gres;                                 // --gres, e.g. "gpu:h100:4" (comma-separated for several)
  std::optional<std::uint32_t> nodes;               // --nodes
  std::optional<std::uint32_t> ntasks_per_node;     // --ntasks-per-node
  std::optional<std::uint32_t> ntasks;              // --ntasks
  std::optional<std::uint32_t> cpus_per_task;       // --cpus-per-task
  std::optional<std::uint32_t> time_limit_minutes;  // --time
  std::string output;                               // --output, Slurm patterns allowed (%A array job id, %a task id)
  std::string error;                                // --error
  std::string work_dir;                             // --chdir; the submitting process's working directory when empty
  std::string comment;                              // --comment
  std::string wckey;                                // --wckey
  std::optional<bool> requeue;                      // --requeue / --no-requeue
  std::string exclude;                              // --exclude, a node list (nodes that failed earlier tries)
  std::string mem;                                  // --mem per node: "256G", "500000M", "64000" (MB), "0" (all)
  bool exclusive = false;                           // --exclusive
  // Further sbatch options ("--name" or "--name=value"), handed to sbatch as they are. libslurm has no parser
  // for them, so a submission that carries any goes through sbatch whatever the backend.
  std::vector<std::string> extra_options;
  // Variables set in the job on top of the submitter's whole environment (sbatch --export=ALL).
  std::map<std::string, std::string> environment;
};

// One array task as the controller sees it now.
struct ArrayTaskState {
  std::uint32_t task_id = 0;  // a job that is not an array reports a single task 0
  std::string state;          // Slurm's name: PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, ...
  int exit_code = 0;          // exit status of the batch script (0..255) once it ended
  int signal = 0;             // signal that ended the batch script, 0 if none
  std::string reason;         // Slurm's reason: None, Priority, JobArrayTaskLimit, NonZeroExitCode, ...
  std::string node;           // node list it runs/ran on; empty while pending

  // True once the task can change no more (it left the queue for good or was cancelled).
  [[nodiscard]] bool is_finished() const;
};

// Site limits an admin sets in slurm.conf; every array task counts as a job.
struct SlurmLimits {
  std::uint32_t max_array_size = 0;  // MaxArraySize: the largest index allowed is max_array_size - 1
  std::uint32_t max_job_count = 0;   // MaxJobCount: jobs the controller holds at once
};

class SlurmClient {
 public:
  virtual ~SlurmClient() = default;
  SlurmClient() = default;
  SlurmClient(const SlurmClient&) = delete;
  SlurmClient& operator=(const SlurmClient&) = delete;

  // Submits the array; returns its array job id. Throws SlurmError (see is_back_pressure()).
  virtual JobId submit_array(const ArraySubmission& submission) = 0;

  // Every task of the array, sorted by task id. Empty when the controller no longer knows the job:
  // accounting is not consulted, so finished tasks vanish after the site's MinJobAge (default 300 s).
  virtual std::vector<ArrayTaskState> array_task_states(JobId job) = 0;

  // Cancels the whole array, or one task of it. Cancelling what already ended is not an error.
  virtual void cancel(JobId job) = 0;
  virtual void cancel(JobId job, std::uint32_t task) = 0;

  virtual SlurmLimits limits() = 0;

  // Nodes in a partition (TotalNodes); throws SlurmError for an unknown partition.
  virtual std::uint32_t partition_node_count(const std::string& partition) = 0;

  // The generic resources of each node of a partition, as the controller lists them (a node's Gres=, e.g.
  // "gpu:h100:4(S:0-1),gpu:b200:4"); throws SlurmError for an unknown partition.
  virtual std::vector<std::string> partition_node_gres(const std::string& partition) = 0;

  // The controller's Slurm version, e.g. "22.05.8".
  virtual std::string version() = 0;

  // "libslurm" or "cli".
  [[nodiscard]] virtual std::string backend_name() const = 0;
};

// backend: "libslurm", "cli", or "auto" (libslurm when this build's libslurm release equals the
// controller's major.minor release, else the command-line tools; always the tools in a build without libslurm).
// Slurm's client configuration comes from SLURM_CONF or the system default, as for sbatch. Throws
// std::invalid_argument for an unknown backend name, std::runtime_error for "libslurm" in a build without it.
std::unique_ptr<SlurmClient> make_slurm_client(const std::string& backend);

// The Slurm release this library was compiled against, e.g. "22.05.8"; "" in a build without libslurm.
std::string compiled_slurm_version();

}  // namespace kforge::slurm
