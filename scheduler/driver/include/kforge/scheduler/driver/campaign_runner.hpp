#pragma once
// Drives a campaign generation by generation. The campaign directory is the whole state: a runner started on
// an interrupted campaign resumes it (finished generations are read back, written manifests are reused, tasks
// with a usable shard are not run again).
#include <iosfwd>

#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/confirmation.hpp"
#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/executors/executor.hpp"
#include "kforge/scheduler/executors/gather.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {

// Where one generation's wall time went; written to DIR/gNNNN/timings.json. Scheduler-side time is everything
// but the executor's waiting for tasks; time inside Slurm calls is part of it and shown apart.
struct PhaseTimes {
  double wall_s = 0.0;
  double plan_s = 0.0;     // breed, split, write manifests
  double execute_s = 0.0;  // render, submit, poll, wait (run_all, retries included)
  double execute_waiting_s = 0.0;
  double slurm_calls_s = 0.0;
  double gather_s = 0.0;        // read shards
  double select_write_s = 0.0;  // selection, generation file, campaign index
};

class CampaignRunner {
 public:
  CampaignRunner(CampaignConfig campaign, SiteConfig site, CampaignDir dir, Executor& executor, std::ostream& progress);
  // Runs every generation not yet in the archive, then, once the last one is done and evaluation.confirm_top > 0,
  // confirms the result unless DIR/confirmation.h5 already covers these generations. Returns the number of
  // generations the archive holds.
  int run();
  // `kforge confirm`: the best `top` candidates of each target (island) re-timed against the evaluation's
  // baselines in `rounds` rounds, each round one task of the stage kConfirmStage (DIR/confirm/) run by this
  // runner's executor: the candidates in a random order of that round, the baselines timed in the same task on
  // fresh inputs. Each candidate/baseline pair gets a paired bootstrap interval (bootstrap.hpp). Replaces
  // DIR/confirmation.h5 and returns what it holds. Throws std::runtime_error when there is nothing to confirm.
  jobs::Confirmation confirm(int top, int rounds);

 private:
  std::vector<jobs::TaskManifest> manifests_for(int generation, const ArchiveView& archive);
  std::map<int, std::string> run_missing_tasks(int generation, const std::vector<jobs::TaskManifest>& tasks);
  jobs::Generation assemble(int generation, const std::vector<jobs::TaskManifest>& tasks, const ArchiveView& archive,
                            Gathered gathered);
  void print_progress(const jobs::Generation& g, const ArchiveView& archive, double seconds) const;
  std::vector<jobs::ModelQualityRow> model_quality(const ArchiveView& archive) const;
  bool confirmation_covers(int generations) const;
  jobs::Confirmation confirm_with(const ArchiveView& archive, int top, int rounds);
  std::vector<jobs::TaskManifest> confirmation_tasks(const ArchiveView& archive, int top, int rounds,
                                                     std::uint64_t seed);
  void write_phase_times(int generation, const jobs::Generation& g, size_t tasks, const PhaseTimes& t) const;
  jobs::Provenance provenance() const;

  CampaignConfig campaign_;
  SiteConfig site_;
  CampaignDir dir_;
  Executor& executor_;
  std::ostream& progress_;
  SearchSpace space_;
  std::map<int, std::string> task_history_;  // this generation's task -> what happened before its shard
};

}  // namespace kforge::scheduler
