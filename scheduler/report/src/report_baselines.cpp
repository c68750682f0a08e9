// The paired speedup rule (docs/archive-schema.md, "Speedups"): every output (console, `kforge report`, its JSON,
// share/python/kforge_archive.py) compares a record with the baselines timed in the same array task, because
// baseline timings vary between tasks (other nodes, other load) far more than within one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/statistics.hpp"
#include "kforge/scheduler/report/report.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

constexpr const char* kUnavailable = "speedup unavailable: ";  // the evaluator's evidence line (mpi_eval)

std::string key_of(const std::string& id, const std::string& target) { return id + "@" + target; }

// The evaluator's reason, when a record of the task carries one; else what the archive shows.
std::string reason_for(const jobs::Generation& g, const std::set<std::string>& task_ids, bool row_present) {
  for (const auto& r : g.records) {
    if (!task_ids.count(key_of(r.candidate_id, r.target))) continue;
    const auto at = r.evidence.find(kUnavailable);
    if (at == std::string::npos) continue;
    const auto start = at + std::string(kUnavailable).size();
    return r.evidence.substr(start, r.evidence.find('\n', start) - start);
  }
  return row_present ? "timed, but its time is not a positive number"
                     : "not in the task's timings (the backend could not time it on this target)";
}

}  // namespace

PairedBaselines::PairedBaselines(const CampaignDir& dir, const ArchiveView& archive, const std::set<int>* only) {
  for (const auto& g : archive.generations()) {
    std::map<int, std::set<std::string>> present;  // task -> baseline names with a row
    for (const auto& b : g.baselines) {
      present[b.task].insert(b.name);
      if (std::isfinite(b.time_median_ms) && b.time_median_ms > 0)
        timings_[{g.generation, b.task}][b.name] = b.time_median_ms;
    }
    if (only && !only->count(g.generation)) continue;
    for (int t = 0; fs::exists(dir.manifest(g.generation, t)); ++t) {
      jobs::TaskManifest m;
      try {
        m = jobs::read_manifest(dir.manifest(g.generation, t));
      } catch (const std::exception&) {
        continue;  // its records stay unpaired (NaN) rather than paired with a guess
      }
      std::set<std::string> ids;
      for (const auto& c : m.candidates) {
        ids.insert(key_of(c.id, m.target));
        task_of_[{g.generation, key_of(c.id, m.target)}] = m.task;
      }
      if (m.settings.compile_only || m.candidates.empty()) continue;
      const auto& timed = timings_[{g.generation, m.task}];
      for (const auto& name : m.settings.baselines) {
        if (timed.count(name)) continue;
        failures_.push_back(
            {g.generation, m.task, m.target, name, reason_for(g, ids, present[m.task].count(name) > 0)});
      }
    }
  }
}

double PairedBaselines::speedup(const jobs::EvalRecord& r, const std::string& baseline) const {
  if (r.status != jobs::Status::ok || !(r.time_median_ms > 0)) return jobs::kNaN;
  const auto task = task_of_.find({r.generation, key_of(r.candidate_id, r.target)});
  // Without its manifest the task is unknown; the evaluator stored the reference ratio of the record's own task.
  if (task == task_of_.end()) return baseline == "reference" ? r.speedup : jobs::kNaN;
  const auto timed = timings_.find({r.generation, task->second});
  if (timed == timings_.end()) return jobs::kNaN;
  const auto ms = timed->second.find(baseline);
  return ms == timed->second.end() ? jobs::kNaN : ms->second / r.time_median_ms;
}

std::map<std::string, double> PairedBaselines::speedups(const jobs::EvalRecord& r) const {
  std::set<std::string> names;
  for (const auto& [key, timed] : timings_)
    for (const auto& [name, ms] : timed) names.insert(name);
  std::map<std::string, double> out;
  for (const auto& name : names) out[name] = speedup(r, name);
  return out;
}

std::map<std::string, double> PairedBaselines::task_timings(const jobs::EvalRecord& r) const {
  const auto task = task_of_.find({r.generation, key_of(r.candidate_id, r.target)});
  if (task == task_of_.end()) return {};
  const auto timed = timings_.find({r.generation, task->second});
  return timed == timings_.end() ? std::map<std::string, double>{} : timed->second;
}

std::vector<BaselineSummary> PairedBaselines::summaries() const {
  std::map<std::string, std::vector<double>> by_name;
  for (const auto& [key, timed] : timings_)
    for (const auto& [name, ms] : timed) by_name[name].push_back(ms);
  std::vector<BaselineSummary> out;
  for (auto& [name, times] : by_name) {
    BaselineSummary s{name, jobs::median(times), *std::min_element(times.begin(), times.end()),
                      *std::max_element(times.begin(), times.end()), static_cast<int>(times.size())};
    out.push_back(s);
  }
  return out;
}

}  // namespace kforge::scheduler
