// CampaignRunner::confirm (campaign_runner.hpp): the confirmation stage. Its round tasks are ordinary task
// manifests (confirm_round set, generation kConfirmStage) run by the campaign's own executor, retried and read
// back like a generation's; only the choice of candidates and the analysis of the shards are its own.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <random>
#include <stdexcept>

#include "kforge/jobs/archive_binding.hpp"
#include "kforge/jobs/statistics.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/driver/campaign_runner.hpp"
#include "kforge/scheduler/driver/generation_plan.hpp"
#include "kforge/scheduler/learning/bootstrap.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "kforge/scheduler/search/mix_seed.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kConfirmSalt = 0x636f6e6669726dULL;  // "confirm"

struct Ranked {
  jobs::Candidate candidate;
  jobs::EvalRecord record;
};

// The target's ok records, fastest first (ties by id, so the choice is reproducible), at most `top`.
std::vector<Ranked> best_of_target(const ArchiveView& archive, const std::string& target, int top) {
  std::vector<Ranked> all;
  for (const auto& g : archive.generations()) {
    for (const auto& r : g.records) {
      if (r.target != target || !std::isfinite(jobs::fitness_ms(r))) continue;
      if (const jobs::Candidate* c = archive.candidate(r.candidate_id)) all.push_back(Ranked{*c, r});
    }
  }
  std::sort(all.begin(), all.end(), [](const Ranked& a, const Ranked& b) {
    const double fa = jobs::fitness_ms(a.record), fb = jobs::fitness_ms(b.record);
    return fa != fb ? fa < fb : a.record.candidate_id < b.record.candidate_id;
  });
  if (all.size() > static_cast<std::size_t>(top)) all.resize(static_cast<std::size_t>(top));
  return all;
}

// FNV-1a: a platform-independent number for a baseline name, to give each pair its own bootstrap stream.
std::uint64_t name_hash(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::string plan_text(int top, int rounds, int generations, std::uint64_t seed) {
  return "top " + std::to_string(top) + "\nrounds " + std::to_string(rounds) + "\ngenerations " +
         std::to_string(generations) + "\nseed " + std::to_string(seed) + "\n";
}

// The figures each round produced, as samples; a round whose shard is unusable leaves NaN for all of its subjects.
void collect_round(const CampaignDir& dir, const jobs::TaskManifest& task, const std::map<int, std::string>& failed,
                   std::vector<jobs::ConfirmationSample>& out, std::ostream& progress) {
  const auto sample = [&](const std::string& subject, const std::string& status, double ms) {
    out.push_back({task.island, task.target, task.confirm_round, subject, status, ms});
  };
  jobs::Shard shard;
  try {
    shard = read_task_shard(dir, task);
  } catch (const std::exception& e) {
    auto it = failed.find(task.task);
    progress << "kforge confirm: round " << task.confirm_round << " of " << task.target << " has no usable shard ("
             << (it != failed.end() ? it->second.substr(0, it->second.find(';')) : std::string(e.what()))
             << "); its samples are missing" << std::endl;
    for (const auto& c : task.candidates) sample(c.id, "infra_error", jobs::kNaN);
    for (const auto& b : task.settings.baselines) sample(jobs::kBaselineSubjectPrefix + b, "infra_error", jobs::kNaN);
    return;
  }
  for (const auto& r : shard.records) {
    sample(r.candidate_id, std::string(jobs::to_string(r.status)),
           r.status == jobs::Status::ok ? r.time_median_ms : jobs::kNaN);
  }
  for (const auto& name : task.settings.baselines) {
    double ms = jobs::kNaN;
    for (const auto& b : shard.baselines) {
      if (b.name == name) ms = b.time_median_ms;
    }
    sample(jobs::kBaselineSubjectPrefix + name, std::isfinite(ms) ? "ok" : "infra_error", ms);
  }
}

// Per round, the time of `subject` on `island`.
std::map<int, double> times_of(const std::vector<jobs::ConfirmationSample>& samples, int island,
                               const std::string& subject) {
  std::map<int, double> out;
  for (const auto& s : samples) {
    if (s.island == island && s.subject == subject && std::isfinite(s.time_ms) && s.time_ms > 0)
      out[s.round] = s.time_ms;
  }
  return out;
}

}  // namespace

std::vector<jobs::TaskManifest> CampaignRunner::confirmation_tasks(const ArchiveView& archive, int top, int rounds,
                                                                   std::uint64_t seed) {
  std::vector<jobs::TaskManifest> tasks;
  for (int island = 0; island < static_cast<int>(campaign_.targets.size()); ++island) {
    std::vector<jobs::Candidate> best;
    for (auto& r : best_of_target(archive, campaign_.targets[static_cast<std::size_t>(island)], top)) {
      r.candidate.island = island;
      best.push_back(std::move(r.candidate));
    }
    if (best.empty()) continue;
    for (int round = 0; round < rounds; ++round) {
      jobs::TaskManifest m;
      m.campaign = campaign_.name;
      m.campaign_id = jobs::read_campaign_id(dir_.root());
      m.generation = kConfirmStage;
      m.island = island;
      m.task = static_cast<int>(tasks.size());
      m.target = campaign_.targets[static_cast<std::size_t>(island)];
      m.family = campaign_.family;
      m.backend = campaign_.backend;
      m.seed = mix_seed(seed, static_cast<std::uint64_t>(island), static_cast<std::uint64_t>(round));  // fresh inputs
      m.settings = campaign_.eval;
      m.settings.validation_cases.clear();  // correctness was settled in the campaign; rounds only time
      m.confirm_round = round;
      m.candidates = best;
      std::mt19937_64 order(m.seed);
      std::shuffle(m.candidates.begin(), m.candidates.end(), order);  // no candidate always goes first
      m.shard_path = "../shards/" + dir_.shard(kConfirmStage, m.task).filename().string();
      tasks.push_back(std::move(m));
    }
  }
  return tasks;
}

jobs::Confirmation CampaignRunner::confirm(int top, int rounds) {
  return confirm_with(ArchiveView::load(dir_), top, rounds);
}

jobs::Confirmation CampaignRunner::confirm_with(const ArchiveView& archive, int top, int rounds) {
  if (top < 1 || rounds < 2) throw std::invalid_argument("a confirmation needs --top >= 1 and --rounds >= 2");
  const int generations = static_cast<int>(archive.generations().size());
  if (generations == 0) throw std::runtime_error(dir_.root().string() + " has no finished generation to confirm");
  if (campaign_.eval.baselines.empty())
    throw std::runtime_error("evaluation.baselines is empty: there is no baseline to confirm a speedup against");
  if (campaign_.eval.compile_only)
    throw std::runtime_error("evaluation.compile_only: candidates are never timed, so nothing can be confirmed");
  const std::uint64_t seed = mix_seed(campaign_.search.seed ^ kConfirmSalt, static_cast<std::uint64_t>(top),
                                      static_cast<std::uint64_t>(rounds));
  const fs::path stage = dir_.generation_dir(kConfirmStage);
  const fs::path plan = stage / "plan.txt";
  const std::string wanted_plan = plan_text(top, rounds, generations, seed);
  std::vector<jobs::TaskManifest> tasks;
  if (fs::exists(dir_.tasks_complete_marker(kConfirmStage)) && fs::exists(plan) &&
      jobs::read_text_file(plan) == wanted_plan) {
    for (int t = 0; fs::exists(dir_.manifest(kConfirmStage, t)); ++t)
      tasks.push_back(jobs::read_manifest(dir_.manifest(kConfirmStage, t)));
  } else {
    fs::remove_all(stage);  // an earlier confirmation of other candidates or rounds: its work is not this one's
    tasks = confirmation_tasks(archive, top, rounds, seed);
    if (tasks.empty()) throw std::runtime_error("no target has an ok candidate to confirm");
    fs::create_directories(dir_.tasks_dir(kConfirmStage));
    fs::create_directories(dir_.shard(kConfirmStage, 0).parent_path());
    jobs::write_text_file_atomically(plan, wanted_plan);
    for (const auto& t : tasks) jobs::write_manifest(dir_.manifest(kConfirmStage, t.task), t);
    jobs::write_text_file_atomically(dir_.tasks_complete_marker(kConfirmStage), std::to_string(tasks.size()) + "\n");
  }
  progress_ << "kforge confirm: re-timing the best " << top << " candidate(s) of each target against "
            << campaign_.eval.baselines.size() << " baseline(s) in " << rounds << " rounds (" << tasks.size()
            << " tasks, executor " << executor_.name() << ")" << std::endl;
  const std::map<int, std::string> failed = run_missing_tasks(kConfirmStage, tasks);

  jobs::Confirmation c;
  c.provenance = provenance();
  c.generations = generations;
  c.top = top;
  c.rounds = rounds;
  c.resamples = kDefaultBootstrapResamples;
  c.seed = seed;
  for (const auto& t : tasks) collect_round(dir_, t, failed, c.samples, progress_);
  const PairedBaselines paired(dir_, archive);
  for (int island = 0; island < static_cast<int>(campaign_.targets.size()); ++island) {
    const std::string& target = campaign_.targets[static_cast<std::size_t>(island)];
    const auto ranked = best_of_target(archive, target, top);
    for (std::size_t k = 0; k < ranked.size(); ++k) {
      const auto candidate_times = times_of(c.samples, island, ranked[k].record.candidate_id);
      for (const auto& baseline : campaign_.eval.baselines) {
        const auto baseline_times = times_of(c.samples, island, jobs::kBaselineSubjectPrefix + baseline);
        std::vector<double> ratios, cand, base;
        for (const auto& [round, ms] : candidate_times) {
          auto it = baseline_times.find(round);
          if (it == baseline_times.end()) continue;
          ratios.push_back(it->second / ms);
          cand.push_back(ms);
          base.push_back(it->second);
        }
        const std::uint64_t pair_seed = mix_seed(seed ^ name_hash(baseline), static_cast<std::uint64_t>(island), k);
        const SpeedupInterval interval = bootstrap_speedup(ratios, pair_seed, c.resamples, c.confidence);
        jobs::ConfirmedSpeedup s;
        s.island = island;
        s.target = target;
        s.rank = static_cast<std::int32_t>(k + 1);
        s.candidate_id = ranked[k].record.candidate_id;
        s.params = ranked[k].record.params;
        s.baseline = baseline;
        s.rounds = static_cast<std::int32_t>(ratios.size());
        s.speedup = interval.estimate;
        s.ci_low = interval.low;
        s.ci_high = interval.high;
        s.candidate_ms = jobs::median(cand);
        s.baseline_ms = jobs::median(base);
        s.campaign_speedup = paired.speedup(ranked[k].record, baseline);  // the report's rule (report.hpp)
        s.verdict = speedup_verdict(interval);
        progress_ << "kforge confirm: " << target << " #" << s.rank << " " << s.candidate_id.substr(0, 12) << ": "
                  << describe_speedup(interval, baseline, s.rounds) << std::endl;
        c.speedups.push_back(std::move(s));
      }
    }
  }
  jobs::write_confirmation(dir_.confirmation_file(), c);
  progress_ << "kforge confirm: wrote " << dir_.confirmation_file().string() << std::endl;
  return c;
}

}  // namespace kforge::scheduler
