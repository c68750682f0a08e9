#pragma once
// What `kforge status` and `kforge report` tell about a campaign directory: one model (build_report) in every form
// a person or a program reads it: tables (report_table.cpp), JSON (report_json.cpp), an HTML page and plots
// (report_plot.cpp, through share/python/kforge_plot.py) and the live view of `kforge watch` (report_watch.cpp).
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kforge/jobs/confirmation.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"
#include "kforge/scheduler/executors/slurm_executor.hpp"  // ArrayProgress
#include "kforge/scheduler/learning/learning.hpp"

namespace kforge::scheduler {

inline constexpr int kReportSchemaVersion = 3;  // 2: paired speedups (best.baselines), baselines, effects; 3:
// per-generation speedups on one scale (speedup_scale), what each generation added, model_quality

// One generation in one consistent story (issue 32): its best and the best so far as times with speedups on one
// scale (ReferenceScale), so a faster time always reads as a larger speedup, and what the generation added.
struct GenerationSummary {
  int generation = 0;
  int evaluated = 0;
  std::map<jobs::Status, int> status_counts;
  int noisy = 0;                     // records whose timing missed target_spread (EvalRecord::timing_noisy)
  double best_ms = jobs::kNaN;       // best of this generation's new evaluations ("generation best")
  double best_speedup = jobs::kNaN;  // ReferenceScale's speedup of it
  std::string best_id;
  double best_so_far_ms = jobs::kNaN;  // best of generations 0..this one ("best so far")
  double best_so_far_speedup = jobs::kNaN;
  std::string best_so_far_id;
  int best_so_far_generation = -1;
  std::map<std::string, std::pair<double, double>> best_so_far_per_target;  // target -> (ms, scaled speedup)
  // What it added: how much it lowered the best so far (a fraction: 0.042 = 4.2% faster; 0 when it did not; NaN
  // while nothing earlier was ok); its children that beat their best parent (the /operator_weights rows: bred
  // children, not generation 0's initial population); parameter values no earlier generation had tried.
  double improvement = jobs::kNaN;
  int children = 0, improved_children = 0;
  int new_parameter_values = 0;
  // How well the surrogate's model foresaw this generation's proposals, per target (jobs::Generation::model_quality).
  std::vector<jobs::ModelQualityRow> model_quality;
};

// The per-generation figures' one scale: per target, the median of the reference baseline's timings over the tasks
// of the first generation that timed it. Every row's speedup is that time / the row's time, so the figures agree
// with the times; the paired speedup (PairedBaselines) stays the rule for one record against its own task's
// baselines (`best`, the headline, load_speedups).
class ReferenceScale {
 public:
  struct Entry {
    double ms = jobs::kNaN;
    int generation = 0;
    int tasks = 0;
  };
  ReferenceScale(const CampaignDir& dir, const ArchiveView& archive);
  double speedup(const std::string& target, double ms) const;  // NaN without a reference time for the target
  const std::map<std::string, Entry>& entries() const { return by_target_; }
  // "reference 24.24 ms (generation 0, median of 2 tasks)"; per target when several
  std::string describe() const { return describe(by_target_); }
  static std::string describe(const std::map<std::string, Entry>& entries);

 private:
  std::map<std::string, Entry> by_target_;
};

// Every generation of the archive summarized in order (the report's table, the console's line: its last row).
std::vector<GenerationSummary> summarize_generations(const ArchiveView& archive, const ReferenceScale& scale);

// "best so far 1.19 ms (20.37x) g1 8003ff02  generation best 1.307 ms (18.55x)  added: no new best, 3 of 16
// children beat their parents, 2 new parameter values": the console's wording (`per target:` when several).
std::string describe_generation(const GenerationSummary& s);

// A baseline over the campaign's tasks: its median task timing with the spread (descriptive: speedups are paired).
struct BaselineSummary {
  std::string name;
  double median_ms = jobs::kNaN, min_ms = jobs::kNaN, max_ms = jobs::kNaN;
  int tasks = 0;  // tasks that timed it
};

// A task that was to time a baseline and has no usable timing of it, with the reason the archive gives.
struct BaselineFailure {
  int generation = 0;
  int task = 0;
  std::string target;
  std::string baseline;
  std::string reason;
};

// The best ok record of one target (island) with its paired speedups (baseline name -> ratio).
struct TargetBest {
  jobs::EvalRecord record;
  std::map<std::string, double> speedups;
};

// One parameter value's effect on time: relative = time / its target's median ok time; the geometric mean of
// its ok evaluations' relative times with a 95% percentile bootstrap interval (NaN with fewer than 2).
struct ParameterEffect {
  std::string parameter, value;
  int evaluated = 0, ok = 0;
  double relative = jobs::kNaN, ci_low = jobs::kNaN, ci_high = jobs::kNaN;
};

struct Ancestor {
  std::string id;
  std::string op;
  int generation = 0;
  std::string params;
  double time_ms = jobs::kNaN;
  bool timing_noisy = false;  // its record's timing missed target_spread
};

struct CampaignReport {
  std::string campaign;
  std::string directory;
  int generations_done = 0;
  int generations_planned = 0;
  bool running = false;        // another process holds the campaign lock
  int current_tasks = 0;       // manifests of the generation in progress
  int current_tasks_done = 0;  // of those, tasks whose shard exists
  int evaluations = 0;
  std::map<jobs::Status, int> status_counts;
  int noisy = 0;  // records whose timing missed target_spread
  std::vector<GenerationSummary> generations;
  std::map<std::string, ReferenceScale::Entry> speedup_scale;  // target -> the per-generation speedups' reference
  std::optional<jobs::EvalRecord> best;
  std::vector<Ancestor> lineage;              // the best candidate's ancestors, nearest first
  std::map<std::string, double> baseline_ms;  // baseline name -> median over the campaign's tasks
  std::vector<BaselineSummary> baselines;     // the same with spread and task counts
  std::vector<BaselineFailure> baseline_failures;
  std::map<std::string, double> best_speedups;          // the best record's paired speedup per baseline
  std::map<std::string, double> best_task_baseline_ms;  // the baselines timed in the best record's own task
  std::map<std::string, TargetBest> best_per_target;
  std::vector<ParameterEffect> parameter_effects;
  std::vector<std::string> lessons_summary;  // /lessons/summary of the newest generation file
  // Engine campaigns (issue 10) add their serving figures here: an `engine` block beside `best`.
  std::vector<ArrayProgress> arrays;                // Slurm sites only: the current generation's arrays
  std::string live_states_note;                     // why the arrays' live states could not be read; empty when read
  std::map<std::string, OperatorCredit> operators;  // op ("mutation", "agent:gemm-rewriter", ...) -> credit
  std::optional<jobs::Confirmation> confirmation;   // DIR/confirmation.h5 (kforge confirm), when there is one
  std::string confirmation_note;                    // why it is absent, stale or unreadable; empty otherwise
};

// The report's headline: the best candidate's confirmed speedup against the reference baseline (else the first
// baseline) when the confirmation covers it, else its single campaign measurement, marked unconfirmed.
struct Headline {
  std::string candidate_id;
  std::string target;
  std::string baseline;
  bool confirmed = false;
  double speedup = jobs::kNaN;
  double ci_low = jobs::kNaN, ci_high = jobs::kNaN;
  int rounds = 0;
  std::string verdict;  // faster, not_faster, slower; "unconfirmed" without a confirmation
  std::string text;     // "2.10x faster than reference (interval 1.95-2.31)", "not faster than reference (...)"
};
std::optional<Headline> headline_of(const CampaignReport& r);

// The paired speedup rule (docs/archive-schema.md, "Speedups"): a record is compared with the baselines timed in the
// same array task (its generation's manifest that lists it), never with another task's timing.
class PairedBaselines {
 public:
  // only: read the manifests of these generations alone (the console needs a few records, not every failure).
  PairedBaselines(const CampaignDir& dir, const ArchiveView& archive, const std::set<int>* only = nullptr);
  // baseline time of record r's task / r's median time; NaN when r is not ok or its task did not time `baseline`.
  double speedup(const jobs::EvalRecord& r, const std::string& baseline) const;
  std::map<std::string, double> speedups(const jobs::EvalRecord& r) const;      // every baseline its task timed
  std::map<std::string, double> task_timings(const jobs::EvalRecord& r) const;  // its task's baseline ms by name
  std::vector<BaselineSummary> summaries() const;
  const std::vector<BaselineFailure>& failures() const { return failures_; }

 private:
  std::map<std::pair<int, std::string>, int> task_of_;                    // (generation, id) -> task
  std::map<std::pair<int, int>, std::map<std::string, double>> timings_;  // (generation, task) -> name -> ms
  std::vector<BaselineFailure> failures_;
};

// Every parameter value's effect over the archive's records (report_effects.cpp).
std::vector<ParameterEffect> parameter_effects(const ArchiveView& archive);

// Reads DIR (its configs and generation files); throws std::runtime_error naming what is missing.
CampaignReport build_report(const CampaignDir& dir);

void write_report_table(std::ostream& out, const CampaignReport& r);
// `kforge plot DIR --out OUT --format png|svg` and `kforge report DIR --html FILE` (report_plot.cpp): run
// share/python/kforge_plot.py with this report as JSON; return its exit status.
int plot_campaign(const CampaignDir& dir, const std::filesystem::path& out, const std::string& format);
int write_report_html(const CampaignDir& dir, const std::filesystem::path& file);
// `kforge watch DIR` (report_watch.cpp): redraws progress bars (generations, the current generation's tasks), an
// ETA and the best so far every interval_s until the campaign is done (or once); returns the exit status.
int watch_campaign(const CampaignDir& dir, double interval_s, bool once, std::ostream& out);
void write_report_json(std::ostream& out, const CampaignReport& r);
void write_status_table(std::ostream& out, const CampaignReport& r);
void write_status_json(std::ostream& out, const CampaignReport& r);

}  // namespace kforge::scheduler
