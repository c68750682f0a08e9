// The per-generation story (issue 32): each generation's best and the best so far as times with speedups on one
// scale, and what the generation added. The console line, `kforge report` (table and JSON), `kforge watch` and
// share/python/kforge_speedups.py's best_per_generation all read these figures, so they tell the same story.
#include <cmath>
#include <cstdio>
#include <set>

#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/statistics.hpp"
#include "kforge/scheduler/report/report.hpp"

namespace kforge::scheduler {

namespace {

constexpr const char* kReference = "reference";

// Per target, the reference timings of generation g's tasks (positive and finite ones), by the task's manifest.
std::map<std::string, std::vector<double>> reference_timings(const CampaignDir& dir, const jobs::Generation& g) {
  std::map<int, double> by_task;
  for (const auto& b : g.baselines)
    if (b.name == kReference && std::isfinite(b.time_median_ms) && b.time_median_ms > 0)
      by_task[b.task] = b.time_median_ms;
  std::map<std::string, std::vector<double>> out;
  for (const auto& [task, ms] : by_task) {
    try {
      out[jobs::read_manifest(dir.manifest(g.generation, task)).target].push_back(ms);
    } catch (const std::exception&) {  // no manifest, no target: the timing is left out rather than guessed
    }
  }
  return out;
}

// Parameter values (name=value) of a generation's candidates.
std::set<std::string> parameter_values(const jobs::Generation& g) {
  std::set<std::string> out;
  for (const auto& c : g.candidates)
    for (const auto& [name, value] : c.genome.params) out.insert(name + "=" + jobs::to_text(value));
  return out;
}

bool bred(const std::string& op) { return op != "init" && op != "prior"; }  // children with parents to beat

}  // namespace

ReferenceScale::ReferenceScale(const CampaignDir& dir, const ArchiveView& archive) {
  std::set<std::string> targets;
  for (const auto& g : archive.generations())
    for (const auto& r : g.records) targets.insert(r.target);
  for (const auto& g : archive.generations()) {
    if (by_target_.size() == targets.size()) break;  // every target has its scale: later manifests are not read
    if (g.baselines.empty()) continue;
    for (auto& [target, times] : reference_timings(dir, g)) {
      if (by_target_.count(target)) continue;
      by_target_[target] = Entry{jobs::median(times), g.generation, static_cast<int>(times.size())};
    }
  }
}

double ReferenceScale::speedup(const std::string& target, double ms) const {
  const auto it = by_target_.find(target);
  return it == by_target_.end() || !(ms > 0) ? jobs::kNaN : it->second.ms / ms;
}

std::string ReferenceScale::describe(const std::map<std::string, Entry>& entries) {
  std::string out;
  for (const auto& [target, e] : entries) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "%sreference %.4g ms (generation %d, median of %d task%s)",
                  entries.size() > 1 ? (target + ": ").c_str() : "", e.ms, e.generation, e.tasks,
                  e.tasks == 1 ? "" : "s");
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "no reference timing" : out;
}

std::vector<GenerationSummary> summarize_generations(const ArchiveView& archive, const ReferenceScale& scale) {
  std::vector<GenerationSummary> out;
  const jobs::EvalRecord* so_far = nullptr;
  std::map<std::string, const jobs::EvalRecord*> per_target;
  std::set<std::string> values_seen;
  for (const auto& g : archive.generations()) {
    GenerationSummary s;
    s.generation = g.generation;
    s.evaluated = static_cast<int>(g.records.size());
    const double before = so_far ? jobs::fitness_ms(*so_far) : jobs::kNaN;
    for (const auto& r : g.records) {
      ++s.status_counts[r.status];
      if (r.timing_noisy) ++s.noisy;
      const double f = jobs::fitness_ms(r);
      if (!std::isfinite(f)) continue;
      if (!(f >= s.best_ms)) {  // the first of equal times
        s.best_ms = f;
        s.best_speedup = scale.speedup(r.target, f);
        s.best_id = r.candidate_id;
      }
      if (!so_far || f < jobs::fitness_ms(*so_far)) so_far = &r;
      const jobs::EvalRecord*& t = per_target[r.target];
      if (!t || f < jobs::fitness_ms(*t)) t = &r;
    }
    if (so_far) {
      s.best_so_far_ms = jobs::fitness_ms(*so_far);
      s.best_so_far_speedup = scale.speedup(so_far->target, s.best_so_far_ms);
      s.best_so_far_id = so_far->candidate_id;
      s.best_so_far_generation = so_far->generation;
      if (std::isfinite(before)) s.improvement = std::max(0.0, (before - s.best_so_far_ms) / before);
    }
    for (const auto& [target, r] : per_target)
      s.best_so_far_per_target[target] = {jobs::fitness_ms(*r), scale.speedup(target, jobs::fitness_ms(*r))};
    for (const auto& w : g.operator_weights) {  // as the run judged them (files before it have none: 0 of 0)
      if (!bred(w.op)) continue;
      s.children += w.children;
      s.improved_children += w.improved;
    }
    for (const auto& v : parameter_values(g)) s.new_parameter_values += values_seen.insert(v).second ? 1 : 0;
    s.model_quality = g.model_quality;
    out.push_back(std::move(s));
  }
  return out;
}

std::string describe_generation(const GenerationSummary& s) {
  auto timed = [](const char* label, double ms, double speedup) {
    char buf[96];
    if (!std::isfinite(ms)) return std::string(label) + " -";
    std::snprintf(buf, sizeof buf, "%s %.4g ms", label, ms);
    std::string out = buf;
    if (std::isfinite(speedup)) {  // families without a reference baseline have no speedup
      std::snprintf(buf, sizeof buf, " (%.2fx)", speedup);
      out += buf;
    }
    return out;
  };
  std::string out = timed("best so far", s.best_so_far_ms, s.best_so_far_speedup);
  if (!s.best_so_far_id.empty())
    out += " g" + std::to_string(s.best_so_far_generation) + " " + s.best_so_far_id.substr(0, 8);
  out += "  " + timed("generation best", s.best_ms, s.best_speedup);
  char buf[160];
  if (s.best_so_far_id.empty())
    out += "  added: nothing ok yet";
  else if (std::isnan(s.improvement))
    out += "  added: the first best";
  else if (s.improvement > 0) {
    std::snprintf(buf, sizeof buf, "  added: a new best, %.1f%% faster", 100.0 * s.improvement);
    out += buf;
  } else {
    out += "  added: no new best";
  }
  if (s.children > 0) {
    std::snprintf(buf, sizeof buf, ", %d of %d children beat their parents", s.improved_children, s.children);
    out += buf;
  }
  std::snprintf(buf, sizeof buf, ", %d new parameter value%s", s.new_parameter_values,
                s.new_parameter_values == 1 ? "" : "s");
  out += buf;
  if (s.best_so_far_per_target.size() < 2) return out;
  out += "  per target:";
  for (const auto& [target, best] : s.best_so_far_per_target)
    out += " " + timed(target.c_str(), best.first, best.second);
  return out;
}

}  // namespace kforge::scheduler
