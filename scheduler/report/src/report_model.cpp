#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <set>

#include "kforge/jobs/archive_binding.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/statistics.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/executors/gather.hpp"
#include "kforge/scheduler/learning/bootstrap.hpp"
#include "kforge/scheduler/report/report.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

std::vector<Ancestor> lineage_of(const ArchiveView& archive, const jobs::EvalRecord& best) {
  std::vector<Ancestor> out;
  std::set<std::string> visited;
  std::deque<std::string> queue(best.parents.begin(), best.parents.end());
  while (!queue.empty() && out.size() < 64) {
    std::string id = queue.front();
    queue.pop_front();
    if (!visited.insert(id).second) continue;
    const jobs::Candidate* c = archive.candidate(id);
    if (!c) continue;
    Ancestor a{id, c->op, c->generation, c->genome.to_text(), jobs::kNaN};
    if (const jobs::EvalRecord* r = archive.record(id, best.target)) {
      a.time_ms = jobs::fitness_ms(*r);
      a.timing_noisy = r->timing_noisy;
    }
    out.push_back(a);
    queue.insert(queue.end(), c->parents.begin(), c->parents.end());
  }
  return out;
}

void read_progress(const CampaignDir& dir, CampaignReport& r) {
  const int g = r.generations_done;
  for (int t = 0; fs::exists(dir.manifest(g, t)); ++t) {
    ++r.current_tasks;
    // Finished only when its shard is whole and its own (not truncated, not another generation's or campaign's).
    try {
      if (fs::exists(dir.shard(g, t)) && shard_is_usable(dir, jobs::read_manifest(dir.manifest(g, t))))
        ++r.current_tasks_done;
    } catch (const std::exception&) {  // an unreadable manifest: the task is not finished either
    }
  }
}

// DIR/confirmation.h5, when present; a stale or unreadable one is reported, never trusted for the headline.
void read_confirmation_of(const CampaignDir& dir, CampaignReport& r) {
  if (!fs::exists(dir.confirmation_file())) {
    r.confirmation_note = r.best ? "not confirmed: run kforge confirm " + dir.root().string() + " --top 3"
                                 : "not confirmed: nothing timed yet to confirm";
    return;
  }
  try {
    r.confirmation = jobs::read_confirmation(dir.confirmation_file(), jobs::read_campaign_id(dir.root()));
  } catch (const std::exception& e) {
    r.confirmation_note = std::string("confirmation unreadable, not used: ") + e.what();
    return;
  }
  if (r.confirmation->generations != r.generations_done) {
    r.confirmation_note = "the confirmation covers " + std::to_string(r.confirmation->generations) + " of " +
                          std::to_string(r.generations_done) + " generations; run kforge confirm again";
  }
}

}  // namespace

std::optional<Headline> headline_of(const CampaignReport& r) {
  if (!r.best) return std::nullopt;
  Headline h;
  h.candidate_id = r.best->candidate_id;
  h.target = r.best->target;
  if (r.confirmation && r.confirmation_note.empty()) {
    const jobs::ConfirmedSpeedup* chosen = nullptr;
    for (const auto& s : r.confirmation->speedups) {
      if (s.candidate_id != h.candidate_id || s.target != h.target) continue;
      if (!chosen || (s.baseline == "reference" && chosen->baseline != "reference")) chosen = &s;
    }
    if (chosen) {
      h.baseline = chosen->baseline;
      h.confirmed = true;
      h.speedup = chosen->speedup;
      h.ci_low = chosen->ci_low;
      h.ci_high = chosen->ci_high;
      h.rounds = chosen->rounds;
      h.verdict = chosen->verdict;
      h.text = describe_speedup({chosen->speedup, chosen->ci_low, chosen->ci_high}, chosen->baseline, chosen->rounds);
      return h;
    }
  }
  h.baseline = "reference";
  const auto paired = r.best_speedups.find("reference");  // the paired rule, as everywhere else
  h.speedup = paired != r.best_speedups.end() ? paired->second : r.best->speedup;
  h.verdict = "unconfirmed";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.2fx vs reference, one campaign measurement (unconfirmed)", h.speedup);
  h.text = std::isfinite(h.speedup) ? buf : "no speedup measured (unconfirmed)";
  return h;
}

CampaignReport build_report(const CampaignDir& dir) {
  if (!fs::exists(dir.campaign_config())) {
    throw std::runtime_error(dir.root().string() + " is not a kforge campaign directory (no campaign.yaml)");
  }
  CampaignConfig config = load_stored_campaign(dir);
  ArchiveView archive = ArchiveView::load(dir);
  CampaignReport r;
  r.campaign = config.name;
  r.directory = dir.root().string();
  r.generations_planned = config.search.generations;
  r.generations_done = static_cast<int>(archive.generations().size());
  r.running = campaign_driver_pid(dir) != 0;  // a FIFO or symlink in its place is an error, never a hang
  if (r.generations_done < r.generations_planned) read_progress(dir, r);
  const PairedBaselines paired(dir, archive);
  const ReferenceScale scale(dir, archive);
  r.speedup_scale = scale.entries();
  r.generations = summarize_generations(archive, scale);
  for (const auto& s : r.generations) {
    r.evaluations += s.evaluated;
    r.noisy += s.noisy;
    for (auto [status, n] : s.status_counts) r.status_counts[status] += n;
  }
  for (const auto& g : archive.generations()) {
    for (const auto& rec : g.records) {
      if (!std::isfinite(jobs::fitness_ms(rec))) continue;
      auto it = r.best_per_target.find(rec.target);
      if (it == r.best_per_target.end() || jobs::fitness_ms(rec) < jobs::fitness_ms(it->second.record))
        r.best_per_target[rec.target] = {rec, paired.speedups(rec)};
    }
  }
  r.baselines = paired.summaries();
  for (const auto& b : r.baselines) r.baseline_ms[b.name] = b.median_ms;
  r.baseline_failures = paired.failures();
  r.best = archive.best();
  if (r.best) {
    r.best_speedups = paired.speedups(*r.best);
    r.best_task_baseline_ms = paired.task_timings(*r.best);
  }
  r.parameter_effects = parameter_effects(archive);
  r.lessons_summary = archive.lessons().summary;
  read_confirmation_of(dir, r);
  r.operators = campaign_credit(archive);
  if (r.best) r.lineage = lineage_of(archive, *r.best);
  return r;
}

}  // namespace kforge::scheduler
