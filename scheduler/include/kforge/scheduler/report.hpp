#pragma once
// What `kforge status` and `kforge report` tell about a campaign directory, in one model and two formats
// (report_table.cpp for people, report_json.cpp for programs).
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kforge/jobs/confirmation.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/archive_view.hpp"
#include "kforge/scheduler/campaign_dir.hpp"
#include "kforge/scheduler/learning.hpp"

namespace kforge::scheduler {

inline constexpr int kReportSchemaVersion = 1;

struct GenerationSummary {
  int generation = 0;
  int evaluated = 0;
  std::map<jobs::Status, int> status_counts;
  int noisy = 0;                     // records whose timing missed target_spread (EvalRecord::timing_noisy)
  double best_ms = jobs::kNaN;       // best of this generation's new evaluations
  double best_speedup = jobs::kNaN;
};

struct Ancestor {
  std::string id;
  std::string op;
  int generation = 0;
  std::string params;
  double time_ms = jobs::kNaN;
  bool timing_noisy = false;  // its record's timing missed target_spread
};

// One Slurm array of the generation in progress, as the controller sees it now.
struct ArrayProgress {
  std::string job;     // array job id
  std::string target;  // island
  int tasks = 0;
  int pending = 0, running = 0, done = 0, failed = 0;  // done = COMPLETED; failed = every other end state
  bool known = true;   // false once slurmctld has forgotten the job (MinJobAge): the shards tell the rest
};

struct CampaignReport {
  std::string campaign;
  std::string directory;
  int generations_done = 0;
  int generations_planned = 0;
  bool running = false;              // another process holds the campaign lock
  int current_tasks = 0;             // manifests of the generation in progress
  int current_tasks_done = 0;        // of those, tasks whose shard exists
  int evaluations = 0;
  std::map<jobs::Status, int> status_counts;
  int noisy = 0;                     // records whose timing missed target_spread
  std::vector<GenerationSummary> generations;
  std::optional<jobs::EvalRecord> best;
  std::vector<Ancestor> lineage;            // the best candidate's ancestors, nearest first
  std::map<std::string, double> baseline_ms;  // baseline name -> median over the campaign's tasks
  std::vector<ArrayProgress> arrays;          // Slurm sites only: the current generation's arrays
  std::string live_states_note;               // why the arrays' live states could not be read; empty when read
  std::map<std::string, OperatorCredit> operators;  // op ("mutation", "agent:gemm-rewriter", ...) -> credit
  std::optional<jobs::Confirmation> confirmation;  // DIR/confirmation.h5 (kforge confirm), when there is one
  std::string confirmation_note;                   // why it is absent, stale or unreadable; empty otherwise
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

// Reads DIR (its configs and generation files); throws std::runtime_error naming what is missing.
CampaignReport build_report(const CampaignDir& dir);

void write_report_table(std::ostream& out, const CampaignReport& r);
void write_report_json(std::ostream& out, const CampaignReport& r);
void write_status_table(std::ostream& out, const CampaignReport& r);
void write_status_json(std::ostream& out, const CampaignReport& r);

}  // namespace kforge::scheduler
