#include "kforge/scheduler/driver/campaign_runner.hpp"
#include "kforge/jobs/archive_binding.hpp"
#include "kforge/jobs/task_journal.hpp"
#include "kforge/jobs/text_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <sstream>

#include "kforge/scheduler/driver/catalog_warm_start.hpp"
#include "kforge/scheduler/driver/generation_plan.hpp"
#include "kforge/scheduler/driver/infra_failure.hpp"
#include "kforge/scheduler/executors/elapsed.hpp"
#include "kforge/scheduler/executors/gather.hpp"
#include "kforge/scheduler/executors/log_excerpt.hpp"
#include "kforge/scheduler/executors/task_history.hpp"
#include "kforge/scheduler/learning/learning.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "kforge/scheduler/search/migration.hpp"
#include "kforge/scheduler/search/mix_seed.hpp"
#include "kforge/scheduler/search/population.hpp"
#include "kforge/scheduler/search/strategy_children.hpp"

#ifndef KFORGE_VERSION
#define KFORGE_VERSION "unknown"
#endif

namespace kforge::scheduler {
namespace fs = std::filesystem;

CampaignRunner::CampaignRunner(CampaignConfig campaign, SiteConfig site, CampaignDir dir, Executor& executor,
                               std::ostream& progress)
    : campaign_(std::move(campaign)),
      site_(std::move(site)),
      dir_(std::move(dir)),
      executor_(executor),
      progress_(progress),
      space_(campaign_.space) {}

jobs::Provenance CampaignRunner::provenance() const {
  jobs::Provenance p;
  p.version = KFORGE_VERSION;
  p.created = jobs::iso8601_now();
  p.config_hash = jobs::sha256_hex(campaign_.text + "\n---\n" + site_.text);
  p.host = jobs::host_name();
  p.campaign = campaign_.name;
  p.campaign_id = jobs::read_campaign_id(dir_.root());
  return p;
}

std::vector<jobs::TaskManifest> CampaignRunner::manifests_for(int generation, const ArchiveView& archive) {
  std::vector<jobs::TaskManifest> tasks;
  if (fs::exists(dir_.tasks_complete_marker(generation))) {
    // Written before: the same work, read back (never re-planned, so a re-run evaluates exactly the same).
    for (int t = 0; fs::exists(dir_.manifest(generation, t)); ++t)
      tasks.push_back(jobs::read_manifest(dir_.manifest(generation, t)));
    return tasks;
  }
  std::vector<AgentReport> agents;
  tasks = plan_generation(campaign_, site_, space_, archive, generation, dir_.generation_dir(generation) / "agents",
                          &agents, executor_.agent_launcher());
  for (const auto& a : agents) {
    progress_ << "agent " << a.agent << " (island " << a.island << "): " << a.status << ", " << a.accepted
              << " children accepted, " << a.rejected << " rejected" << std::endl;
  }
  fs::create_directories(dir_.tasks_dir(generation));
  fs::create_directories(dir_.shard(generation, 0).parent_path());
  const std::string campaign_id = jobs::read_campaign_id(dir_.root());
  for (auto& t : tasks) {
    t.campaign_id = campaign_id;  // kforge-eval stamps it on the shard
    jobs::write_manifest(dir_.manifest(generation, t.task), t);
  }
  jobs::write_text_file_atomically(dir_.tasks_complete_marker(generation), std::to_string(tasks.size()) + "\n");
  return tasks;
}

std::map<int, std::string> CampaignRunner::run_missing_tasks(int generation,
                                                             const std::vector<jobs::TaskManifest>& tasks) {
  std::map<int, std::string> failed;
  std::set<int> not_to_retry;  // a person's decision (scancel), reported, never overridden by a retry
  auto add_history = [this](int task, const std::string& text) {
    std::string& history = task_history_[task];
    history += (history.empty() ? "" : "\n") + text;
  };
  // One run beyond max_task_retries for a task whose journal names a candidate in flight at kDeathsToBlame deaths:
  // that run records the candidate as crash without running it and evaluates the others (task_journal.hpp).
  for (int attempt = 0; attempt <= site_.max_task_retries + 1; ++attempt) {
    const bool blame_run = attempt > site_.max_task_retries;
    std::vector<TaskLaunch> launches;
    for (const auto& t : tasks) {
      if (not_to_retry.count(t.task) || shard_is_usable(dir_, t)) continue;
      if (blame_run && jobs::journal::most_deaths(dir_.shard(generation, t.task)) < jobs::journal::kDeathsToBlame)
        continue;
      if (blame_run)
        progress_ << "kforge: task " << t.task << " (generation " << generation << ") died "
                  << jobs::journal::kDeathsToBlame << " times on the same candidate: one more run blames it"
                  << std::endl;
      if (attempt == 0) {  // a shard left there that is not this task's whole output is never used: run it again
        if (const std::string why = shard_problem(dir_, t); !why.empty())
          progress_ << "kforge: task " << t.task << " (generation " << generation << ") runs again: " << why
                    << std::endl;
      }
      if (auto it = failed.find(t.task); it != failed.end()) {
        progress_ << "kforge: retry " << attempt << "/" << site_.max_task_retries << " of task " << t.task
                  << " (generation " << generation << ", " << t.target << ") because "
                  << it->second.substr(0, it->second.find(';')) << std::endl;
        // The failure that is retried stays in the evidence of the task's records (task_history.hpp).
        add_history(t.task, it->second + "; retried by kforge");
      }
      launches.push_back(TaskLaunch{t.task, dir_.manifest(generation, t.task), dir_.log(generation, t.task), generation,
                                    t.island, t.target});
    }
    if (launches.empty()) break;
    for (const auto& end : executor_.run_all(launches)) {
      if (!end.history.empty()) add_history(end.task, end.history);  // Slurm requeued it on the way
      if (end.succeeded) {
        failed.erase(end.task);
        continue;
      }
      // A Slurm executor's reason already carries its output file's end; a local task's log is read here.
      failed[end.task] =
          "attempt " + std::to_string(attempt + 1) + " " + end.reason +
          (end.log.empty() ? "; " + log_excerpt(dir_.log(generation, end.task), 6) : " (log: " + end.log + ")");
      if (!end.retry) {
        not_to_retry.insert(end.task);
        progress_ << "kforge: task " << end.task << " (generation " << generation
                  << ") is not retried: " << end.reason.substr(0, end.reason.find(';')) << std::endl;
      }
    }
  }
  return failed;
}

jobs::Generation CampaignRunner::assemble(int generation, const std::vector<jobs::TaskManifest>& tasks,
                                          const ArchiveView& archive, Gathered gathered) {
  jobs::Generation g;
  g.provenance = provenance();
  g.generation = generation;
  g.baselines = std::move(gathered.baselines);
  std::map<std::string, double> fitness;
  for (const auto& r : gathered.records) fitness[r.candidate_id] = jobs::fitness_ms(r);
  for (int island = 0; island < static_cast<int>(campaign_.targets.size()); ++island) {
    std::vector<Member> pool;
    for (const auto& entry : archive.last_population(island)) {
      if (const jobs::Candidate* c = archive.candidate(entry.candidate_id))
        pool.push_back(Member{*c, entry.fitness_ms});
    }
    for (const auto& t : tasks) {
      if (t.island != island) continue;
      for (const auto& c : t.candidates) pool.push_back(Member{c, fitness.at(c.id)});
    }
    std::mt19937_64 rng(mix_seed(campaign_.search.seed ^ 0x73656c656374ULL, static_cast<std::uint64_t>(generation),
                                 static_cast<std::uint64_t>(island)));
    for (const auto& m : select_survivors(std::move(pool), campaign_.search, rng)) {
      g.population.push_back(jobs::PopulationEntry{island, m.candidate.id, m.fitness_ms});
    }
  }
  migrate_between_islands(g.population, static_cast<int>(campaign_.targets.size()), generation, campaign_.search);
  for (const auto& t : tasks) g.candidates.insert(g.candidates.end(), t.candidates.begin(), t.candidates.end());
  g.records = std::move(gathered.records);
  g.operator_weights = operator_weights(campaign_, archive, g);
  g.lessons = derive_lessons(archive, g);
  g.validation = grow_validation(archive.validation_set(), g.records, generation);
  return g;
}

void CampaignRunner::print_progress(const jobs::Generation& g, const ArchiveView& archive, double seconds) const {
  const ReferenceScale scale(dir_, archive);
  if (g.generation == 0) progress_ << "speedups: " << scale.describe() << " / time" << std::endl;
  // The report's own summary of this generation (report_generations.cpp): counts, bests and what it added.
  const GenerationSummary s = summarize_generations(archive, scale).back();
  std::ostringstream line;
  // Generations are numbered from 0 everywhere (folders gNNNN, gen-NNNN.h5, report, Slurm job names).
  line << "generation " << g.generation << " (" << g.generation + 1 << " of " << campaign_.search.generations
       << ")  evaluated " << s.evaluated << "  ok "
       << (s.status_counts.count(jobs::Status::ok) ? s.status_counts.at(jobs::Status::ok) : 0) << "  failed";
  int failed = 0;
  for (auto [status, n] : s.status_counts) {
    if (status == jobs::Status::ok) continue;
    line << " " << jobs::to_string(status) << "=" << n;
    failed += n;
  }
  if (failed == 0) line << " 0";
  char buf[160];
  line << "  " << describe_generation(s);
  std::snprintf(buf, sizeof buf, "  (%.1f s)", seconds);
  progress_ << line.str() << buf << "  noisy " << s.noisy << "/" << s.evaluated << std::endl;
  // How well the surrogate's model foresaw what it proposed (issue 32): a poor figure is why it hedges.
  for (const auto& q : g.model_quality) {
    std::snprintf(buf, sizeof buf, "  model (%s): rank correlation %.2f of predicted and measured, %d proposals",
                  q.target.c_str(), q.rank_correlation, q.predictions);
    progress_ << buf << std::endl;
  }
}

// The surrogate's foresight on each island, once `archive` holds the generation it is stored with.
std::vector<jobs::ModelQualityRow> CampaignRunner::model_quality(const ArchiveView& archive) const {
  std::vector<jobs::ModelQualityRow> rows;
  for (int island = 0; island < static_cast<int>(campaign_.targets.size()); ++island) {
    const ModelQuality q = island_model_quality(campaign_, space_, archive, island);
    if (q.predictions < 3 || !std::isfinite(q.rank_correlation)) continue;
    rows.push_back({island, campaign_.targets[static_cast<std::size_t>(island)], q.rank_correlation, q.predictions});
  }
  return rows;
}

void CampaignRunner::write_phase_times(int g, const jobs::Generation& generation, size_t tasks,
                                       const PhaseTimes& t) const {
  const double scheduler_s = t.plan_s + (t.execute_s - t.execute_waiting_s) + t.gather_s + t.select_write_s;
  char json[1024];
  std::snprintf(json, sizeof json,
                "{\"generation\":%d,\"candidates\":%zu,\"tasks\":%zu,\"executor\":\"%s\",\"wall_s\":%.4f,"
                "\"plan_s\":%.4f,\"execute_s\":%.4f,\"execute_waiting_s\":%.4f,\"slurm_calls_s\":%.4f,"
                "\"gather_s\":%.4f,\"select_write_s\":%.4f,\"scheduler_s\":%.4f,\"scheduler_fraction\":%.5f}\n",
                g, generation.records.size(), tasks, executor_.name().c_str(), t.wall_s, t.plan_s, t.execute_s,
                t.execute_waiting_s, t.slurm_calls_s, t.gather_s, t.select_write_s, scheduler_s,
                t.wall_s > 0 ? scheduler_s / t.wall_s : 0.0);
  jobs::write_text_file_atomically(dir_.generation_dir(g) / "timings.json", json);
}

// True when DIR/confirmation.h5 is this campaign's and confirms all `generations`; a damaged one is redone.
bool CampaignRunner::confirmation_covers(int generations) const {
  if (!fs::exists(dir_.confirmation_file())) return false;
  try {
    return jobs::read_confirmation(dir_.confirmation_file(), jobs::read_campaign_id(dir_.root())).generations ==
           generations;
  } catch (const std::exception& e) {
    progress_ << "kforge: confirming again: " << e.what() << std::endl;
    return false;
  }
}

int CampaignRunner::run() {
  ArchiveView archive = ArchiveView::load(dir_);
  const bool planned_before = !archive.generations().empty() || fs::exists(dir_.tasks_complete_marker(0));
  for (auto& p : catalog_priors(campaign_, site_, dir_, planned_before, progress_)) campaign_.search.prior.push_back(p);
  for (int g = static_cast<int>(archive.generations().size()); g < campaign_.search.generations; ++g) {
    PhaseTimes t;
    AddElapsedTo wall(t.wall_s);
    const ExecutorTimes before = executor_.times();
    std::vector<jobs::TaskManifest> tasks;
    std::map<int, std::string> failed;
    Gathered gathered;
    {
      AddElapsedTo timed(t.plan_s);
      tasks = manifests_for(g, archive);
    }
    {
      AddElapsedTo timed(t.execute_s);
      failed = run_missing_tasks(g, tasks);
    }
    {
      AddElapsedTo timed(t.gather_s);
      gathered = gather_shards(dir_, tasks, failed);
    }
    add_task_history(gathered.records, tasks, task_history_);
    task_history_.clear();
    if (auto why = infrastructure_diagnosis(dir_, g, tasks, failed, gathered, site_.stop_at_infra_error_share)) {
      throw InfrastructureFailure(*why);
    }
    {
      AddElapsedTo timed(t.select_write_s);
      // In memory first: the model's foresight is judged with the generation it is stored in.
      archive.add(assemble(g, tasks, archive, std::move(gathered)));
      archive.set_model_quality(model_quality(archive));
      jobs::write_generation(dir_.generation_file(g), archive.generations().back());
      jobs::rebuild_campaign_index(dir_.root(), provenance());
    }
    t.execute_waiting_s = executor_.times().waiting_s - before.waiting_s;
    t.slurm_calls_s = executor_.times().slurm_calls_s - before.slurm_calls_s;
    t.wall_s = wall.seconds();
    write_phase_times(g, archive.generations().back(), tasks.size(), t);
    print_progress(archive.generations().back(), archive, t.wall_s);
  }
  if (!fs::exists(dir_.index_file()) && !archive.generations().empty())
    jobs::rebuild_campaign_index(dir_.root(), provenance());
  const int done = static_cast<int>(archive.generations().size());
  if (done >= campaign_.search.generations && done > 0 && campaign_.confirm.top > 0 && !confirmation_covers(done) &&
      !campaign_.eval.baselines.empty() && !campaign_.eval.compile_only && archive.best()) {
    confirm_with(archive, campaign_.confirm.top, campaign_.confirm.rounds);  // the headline's figure (docs/cli.md)
  }
  if (done >= campaign_.search.generations && done > 0)
    catalog_finished_campaign(campaign_, site_, dir_, archive, progress_);
  return done;
}

}  // namespace kforge::scheduler
