#pragma once
// Executors run task manifests: each task is `kforge-eval --manifest M` under MPI. The local executor runs
// them as processes on this machine; the Slurm executor (later) submits them as array jobs.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/scheduler/agents/agent_launch.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

struct TaskLaunch {
  int task = 0;
  std::filesystem::path manifest;
  std::filesystem::path log;  // stdout + stderr of the task, appended
  int generation = 0;
  int island = 0;
  std::string target;  // the island's hardware target: where a Slurm executor sends the task
};

struct TaskEnd {
  int task = 0;
  bool succeeded = false;  // exited 0 (the shard is checked separately: a missing shard is never trusted)
  std::string reason;      // "exited with code 3", "killed by signal 9", "could not start mpirun: ..."
  std::string log;         // where the task's output went, when not TaskLaunch::log (Slurm array output files)
  // False when running the task again would override a person's decision (an array task cancelled with
  // scancel outside kforge): the runner records the failure instead of resubmitting.
  bool retry = true;
  // What happened to the task before this end that its end does not show (Slurm requeued it after a node
  // failed): the runner adds it to the evidence of the task's records.
  std::string history{};
};

// Where an executor's time went, cumulative since it was made (for the scheduler-overhead benchmark).
struct ExecutorTimes {
  double waiting_s = 0.0;      // blocked until tasks end (sleeping between polls, waitpid)
  double slurm_calls_s = 0.0;  // inside Slurm calls (submit, state queries, cancel)
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;
  virtual ExecutorTimes times() const { return times_; }
  // Runs every task to its end; returns one TaskEnd per launch, in launch order.
  virtual std::vector<TaskEnd> run_all(const std::vector<TaskLaunch>& tasks) = 0;
  // How agent operators are started; empty (the default): local process groups on the driver's node.
  virtual AgentLauncher agent_launcher() { return {}; }

 protected:
  ExecutorTimes times_;
};

class LocalExecutor final : public Executor {
 public:
  LocalExecutor(LocalExecutorSpec spec, std::filesystem::path eval_binary);
  std::string name() const override { return "local"; }
  std::vector<TaskEnd> run_all(const std::vector<TaskLaunch>& tasks) override;
  // The argv of one task: mpirun -np R [args] --bind-to none kforge-eval --manifest M
  std::vector<std::string> command_for(const TaskLaunch& t) const;

 private:
  LocalExecutorSpec spec_;
  std::filesystem::path eval_binary_;
};

// SIGTERM and SIGINT set a flag instead of killing the driver; executors check it while they wait and stop
// their work and throw StopRequested. The local executor always ends its tasks. The Slurm executor:
//   interrupt (SIGINT, Ctrl-C): cancels the arrays this campaign has queued or running, then stops;
//   terminate (SIGTERM: kill, systemd, kforged, a head job's time limit; or SIGINT with
//             --detach-on-interrupt): leaves them running for a restarted driver to re-attach to,
//             unless the campaign directory holds a CANCELLED marker (kforge cancel), which cancels them.
enum class StopKind { interrupt, terminate };
void install_stop_handlers(bool detach_on_interrupt = false);
bool stop_requested();
StopKind requested_stop_kind();  // meaningful once stop_requested()
int requested_stop_signal();     // SIGINT or SIGTERM once stop_requested(), else 0
struct StopRequested : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// kforge-eval beside the running executable, or $KFORGE_EVAL when set. Throws when it does not exist.
std::filesystem::path locate_eval_binary();

}  // namespace kforge::scheduler
