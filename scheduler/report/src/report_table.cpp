// Plain-text output of `kforge report` and `kforge status`, for people at a terminal.
#include <cstdio>
#include <ostream>
#include <string>

#include "kforge/scheduler/learning/bootstrap.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "report_engine.hpp"

namespace kforge::scheduler {

namespace {

// Fixed-point with `digits` decimals and an optional suffix; "-" for a missing (NaN) figure.
std::string format(int digits, double v, const char* suffix = "") {
  if (!(v == v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%s", digits, v, suffix);
  return buf;
}

std::string failures(const std::map<jobs::Status, int>& counts) {
  std::string out;
  for (auto [status, n] : counts) {
    if (status == jobs::Status::ok || n == 0) continue;
    out += (out.empty() ? "" : " ") + std::string(jobs::to_string(status)) + "=" + std::to_string(n);
  }
  return out.empty() ? "-" : out;
}

// "-4.2%": the best so far became 4.2% faster; "0%": no new best; "first": the first ok result; "-": none yet.
std::string new_best(const GenerationSummary& g) {
  if (g.best_so_far_id.empty()) return "-";
  if (!(g.improvement == g.improvement)) return "first";
  return g.improvement > 0 ? format(1, -100.0 * g.improvement, "%") : "0%";
}

// The surrogate's rank correlation per island ("0.56", "0.56,0.71"); "-" without a model.
std::string model_column(const GenerationSummary& g) {
  std::string out;
  for (const auto& q : g.model_quality) out += (out.empty() ? "" : ",") + format(2, q.rank_correlation);
  return out.empty() ? "-" : out;
}

double noisy_percent(const CampaignReport& r) {
  return r.evaluations > 0 ? 100.0 * r.noisy / r.evaluations : jobs::kNaN;
}

int count(const std::map<jobs::Status, int>& counts, jobs::Status s) {
  auto it = counts.find(s);
  return it == counts.end() ? 0 : it->second;
}

// The confirmed speedups: each candidate against each baseline, with its interval and what it means.
void write_confirmation_table(std::ostream& out, const CampaignReport& r) {
  if (!r.confirmation_note.empty()) out << "confirmation: " << r.confirmation_note << "\n";
  if (!r.confirmation) return;
  const jobs::Confirmation& c = *r.confirmation;
  out << "confirmation: best " << c.top << " of each target, " << c.rounds << " paired rounds, "
      << format(0, 100.0 * c.confidence) << "% bootstrap intervals (" << c.resamples << " resamples)\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-10s %4s %-16s %-12s %6s %9s %13s  %s\n", "target", "rank", "candidate",
                "baseline", "rounds", "speedup", "interval", "verdict");
  out << line;
  for (const auto& s : c.speedups) {
    const std::string interval = format(2, s.ci_low) + "-" + format(2, s.ci_high);
    std::snprintf(line, sizeof line, "%-10s %4d %-16s %-12s %6d %9s %13s  %s\n", s.target.c_str(), s.rank,
                  s.candidate_id.substr(0, 16).c_str(), s.baseline.c_str(), s.rounds, format(2, s.speedup, "x").c_str(),
                  interval.c_str(), describe_speedup({s.speedup, s.ci_low, s.ci_high}, s.baseline, s.rounds).c_str());
    out << line;
  }
}

void write_baselines(std::ostream& out, const CampaignReport& r) {
  for (const auto& b : r.baselines) {
    out << "baseline " << b.name << ": " << format(4, b.median_ms) << " ms median over " << b.tasks << " tasks (range "
        << format(4, b.min_ms) << "-" << format(4, b.max_ms) << " ms)\n";
  }
  for (const auto& f : r.baseline_failures) {
    out << "baseline " << f.baseline << " FAILED in generation " << f.generation << " task " << f.task << " ("
        << f.target << "): " << f.reason << "\n";
  }
}

// Parameter values with their evidence: ok evaluations and a 95% bootstrap interval of the relative time.
void write_effects(std::ostream& out, const CampaignReport& r) {
  if (!r.parameter_effects.empty()) {
    out << "\nparameter effects (relative time: geometric mean of time / the target's median ok time; < 1 faster; "
           "95% bootstrap interval, none below 2 ok runs)\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-16s %-12s %9s %4s %9s %15s\n", "parameter", "value", "evaluated", "ok",
                  "relative", "interval");
    out << line;
    for (const auto& e : r.parameter_effects) {
      const std::string interval = e.ci_low == e.ci_low ? format(3, e.ci_low) + "-" + format(3, e.ci_high) : "-";
      std::snprintf(line, sizeof line, "%-16s %-12s %9d %4d %9s %15s\n", e.parameter.c_str(), e.value.c_str(),
                    e.evaluated, e.ok, format(3, e.relative).c_str(), interval.c_str());
      out << line;
    }
  }
  if (!r.lessons_summary.empty()) out << "\nlessons (/lessons/summary):\n";
  for (const auto& l : r.lessons_summary) out << "  " << l << "\n";
}

}  // namespace

void write_report_table(std::ostream& out, const CampaignReport& r) {
  out << "campaign " << r.campaign << "  (" << r.directory << ")\n";
  // Generations are numbered from 0 (g0000, gen-0000.h5, the "gen" column below); done/planned are counts.
  out << "generations done " << r.generations_done << " of " << r.generations_planned;
  if (r.generations_done > 0) out << " (0.." << r.generations_done - 1 << ")";
  out << "  evaluations " << r.evaluations << "  ok " << count(r.status_counts, jobs::Status::ok) << "  failed "
      << failures(r.status_counts) << "\n";
  out << "timing noisy " << r.noisy << "/" << r.evaluations << " (" << format(1, noisy_percent(r)) << "%)"
      << "  records whose timing spread missed target_spread\n";
  if (const auto h = headline_of(r)) {
    out << "headline: " << h->candidate_id << " on " << h->target << ": " << h->text;
    if (h->confirmed) out << ", confirmed over " << h->rounds << " paired rounds";
    out << "\n";
  }
  out << "\n";
  out << "(gen_best: the generation's own best; so_far: the best of generations 0..gen; speedups on one scale: "
      << ReferenceScale::describe(r.speedup_scale) << " / time; new_best: how much faster the best so far became; "
      << "beat_parents: bred children faster than their best parent; new_values: parameter values tried first; "
      << "model: the surrogate's rank correlation of predicted and measured times)\n";
  char line[400];
  std::snprintf(line, sizeof line, "%-5s %9s %5s %5s %12s %9s %12s %9s %9s %12s %10s %6s  %s\n", "gen", "evaluated",
                "ok", "noisy", "gen_best_ms", "speedup", "so_far_ms", "speedup", "new_best", "beat_parents",
                "new_values", "model", "failures");
  out << line;
  for (const auto& g : r.generations) {
    std::snprintf(
        line, sizeof line, "%-5d %9d %5d %5d %12s %9s %12s %9s %9s %12s %10d %6s  %s\n", g.generation, g.evaluated,
        count(g.status_counts, jobs::Status::ok), g.noisy, format(4, g.best_ms).c_str(),
        format(2, g.best_speedup, "x").c_str(), format(4, g.best_so_far_ms).c_str(),
        format(2, g.best_so_far_speedup, "x").c_str(), new_best(g).c_str(),
        (g.children > 0 ? std::to_string(g.improved_children) + "/" + std::to_string(g.children) : "-").c_str(),
        g.new_parameter_values, model_column(g).c_str(), failures(g.status_counts).c_str());
    out << line;
  }
  // The search's progress as bench/search_efficiency measures it: the best time against evaluations spent
  // (failed ones included), so a user sees whether the search is still improving.
  if (!r.generations.empty()) {
    out << "\nbest so far vs evaluations spent:";  // after an empty line: the table above ends there
    int spent = 0;
    for (const auto& g : r.generations) {
      spent += g.evaluated;
      out << "  " << spent << " -> " << format(4, g.best_so_far_ms, " ms");
    }
    out << "\n";
  }
  out << "\n";
  std::snprintf(line, sizeof line, "%-24s %9s %5s %9s\n", "operator", "children", "ok", "improved");
  out << line;
  for (const auto& [op, c] : r.operators) {
    std::snprintf(line, sizeof line, "%-24s %9d %5d %9d\n", op.c_str(), c.children, c.ok, c.improved);
    out << line;
  }
  out << "\n";
  write_baselines(out, r);
  write_confirmation_table(out, r);
  if (!r.best) {
    // ok records without a time: a compile-only campaign (evaluation.compile_only) compiles and resource-checks, and
    // times nothing, so it has no best to name.
    const auto ok = r.status_counts.find(jobs::Status::ok);
    if (ok != r.status_counts.end() && ok->second > 0)
      out << "best: none: " << ok->second << " candidates ok, none timed (a compile-only campaign times nothing)\n";
    else
      out << "best: none yet (no candidate evaluated ok)\n";
    return;
  }
  const jobs::EvalRecord& b = *r.best;
  out << "best: " << b.candidate_id << "  generation " << b.generation << "  island " << b.island << " (" << b.target
      << ")  op " << b.op << "\n";
  out << "  time " << format(4, b.time_median_ms) << " ms (min " << format(4, b.time_min_ms) << ")\n";
  if (b.timing_noisy) {
    out << "  timing NOISY: interquartile spread " << format(1, 100.0 * b.time_spread_iqr, "%")
        << " missed target_spread; treat this time with care\n";
  }
  for (const auto& [name, s] : r.best_speedups) {
    out << "  vs " << name << ": " << format(3, s, "x") << " (paired: " << name << " timed in the same task)\n";
  }
  out << "  params " << b.params << "\n";
  write_engine_table(out, b);
  if (!r.lineage.empty()) out << "  lineage (nearest first):\n";
  for (const auto& a : r.lineage) {
    out << "    " << a.id << "  g" << a.generation << "  " << a.op << "  " << format(4, a.time_ms, " ms")
        << (a.timing_noisy ? "  (timing noisy)" : "") << "\n";
  }
  if (r.best_per_target.size() > 1) {
    out << "best per target:\n";
    for (const auto& [target, t] : r.best_per_target) {
      auto ref = t.speedups.find("reference");
      out << "  " << target << ": " << t.record.candidate_id << "  " << format(4, t.record.time_median_ms, " ms")
          << "  " << format(2, ref == t.speedups.end() ? jobs::kNaN : ref->second, "x") << " vs reference\n";
    }
  }
  write_effects(out, r);
}

void write_status_table(std::ostream& out, const CampaignReport& r) {
  const char* state = r.generations_done >= r.generations_planned ? "done" : r.running ? "running" : "stopped";
  char line[256];
  std::snprintf(line, sizeof line, "%-20s %-8s %11s %11s %11s %12s\n", "CAMPAIGN", "STATE", "GENS_DONE", "TASKS",
                "EVALUATED", "BEST_MS");
  out << line;
  // A count ("1 of 2": generation 0 done), not a generation number: those start at 0.
  const std::string gen = std::to_string(r.generations_done) + " of " + std::to_string(r.generations_planned);
  const std::string tasks =
      r.current_tasks ? std::to_string(r.current_tasks_done) + "/" + std::to_string(r.current_tasks) : "-";
  std::snprintf(line, sizeof line, "%-20s %-8s %11s %11s %11d %12s\n", r.campaign.c_str(), state, gen.c_str(),
                tasks.c_str(), r.evaluations, format(4, r.best ? r.best->time_median_ms : jobs::kNaN).c_str());
  out << line;
  if (r.arrays.empty()) return;
  std::snprintf(line, sizeof line, "\n%-12s %-12s %6s %8s %8s %6s %7s\n", "ARRAY_JOB", "ISLAND", "TASKS", "PENDING",
                "RUNNING", "DONE", "FAILED");
  out << line;
  for (const auto& a : r.arrays) {
    if (!r.live_states_note.empty()) {
      std::snprintf(line, sizeof line, "%-12s %-12s %6d %s\n", a.job.c_str(), a.target.c_str(), a.tasks,
                    "  live state unavailable (see the note below)");
    } else if (a.known) {
      std::snprintf(line, sizeof line, "%-12s %-12s %6d %8d %8d %6d %7d\n", a.job.c_str(), a.target.c_str(), a.tasks,
                    a.pending, a.running, a.done, a.failed);
    } else {
      std::snprintf(line, sizeof line, "%-12s %-12s %6d %s\n", a.job.c_str(), a.target.c_str(), a.tasks,
                    "  ended (no longer known to slurmctld)");
    }
    out << line;
  }
  if (!r.live_states_note.empty()) out << "\nnote: live Slurm job states unavailable: " << r.live_states_note << "\n";
}

}  // namespace kforge::scheduler
