// JSON output of `kforge report --json` and `kforge status --json` (documented in docs/cli.md).
#include <ostream>

#include "kforge/jobs/json_text.hpp"
#include "kforge/scheduler/learning/bootstrap.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "report_engine.hpp"

#ifndef KFORGE_VERSION
#define KFORGE_VERSION "unknown"
#endif

namespace kforge::scheduler {

namespace {

void write_status_counts(jobs::JsonWriter& w, const std::map<jobs::Status, int>& counts) {
  w.begin_object();
  for (jobs::Status s : jobs::kAllStatuses) {
    auto it = counts.find(s);
    w.field(jobs::to_string(s), it == counts.end() ? 0 : it->second);
  }
  w.end_object();
}

void write_context(jobs::JsonWriter& w, const CampaignReport& r) {
  w.key("context").begin_object();
  w.field("creator", "kforge").field("kforge_version", KFORGE_VERSION).field("created", jobs::iso8601_now());
  w.field("directory", r.directory).end_object();
}

void write_best(jobs::JsonWriter& w, const CampaignReport& r) {
  const jobs::EvalRecord& b = *r.best;
  w.key("best").begin_object();
  w.field("id", b.candidate_id)
      .field("generation", static_cast<int>(b.generation))
      .field("island", static_cast<int>(b.island));
  w.field("target", b.target).field("op", b.op).field("params", b.params);
  const auto ref = r.best_speedups.find("reference");
  w.field("time_ms", b.time_median_ms).field("time_min_ms", b.time_min_ms);
  w.field("speedup_vs_reference", ref == r.best_speedups.end() ? jobs::kNaN : ref->second);
  w.field("time_spread_rel", b.time_spread_rel).field("time_spread_iqr", b.time_spread_iqr);
  w.field("timing_noisy", b.timing_noisy);
  w.key("baselines").begin_object();  // paired speedups: the baseline timed in the best's own task / its time
  for (const auto& [name, s] : r.best_speedups) w.field(name, s);
  w.end_object();
  w.key("lineage").begin_array();
  for (const auto& a : r.lineage) {
    w.begin_object().field("id", a.id).field("op", a.op).field("generation", a.generation).field("params", a.params);
    w.field("time_ms", a.time_ms).field("timing_noisy", a.timing_noisy).end_object();
  }
  w.end_array().end_object();
}

// "headline" (the figure to quote) and "confirmation" (null when DIR/confirmation.h5 is absent or unreadable).
void write_confirmation(jobs::JsonWriter& w, const CampaignReport& r) {
  if (const auto h = headline_of(r)) {
    w.key("headline").begin_object().field("id", h->candidate_id).field("target", h->target);
    w.field("baseline", h->baseline).field("confirmed", h->confirmed).field("speedup", h->speedup);
    w.field("ci_low", h->ci_low).field("ci_high", h->ci_high).field("rounds", h->rounds);
    w.field("verdict", h->verdict).field("text", h->text).end_object();
  } else {
    w.key("headline").value(jobs::kNaN);
  }
  w.field("confirmation_note", r.confirmation_note);
  if (!r.confirmation) {
    w.key("confirmation").value(jobs::kNaN);
    return;
  }
  const jobs::Confirmation& c = *r.confirmation;
  w.key("confirmation").begin_object().field("generations", static_cast<int>(c.generations));
  w.field("top", static_cast<int>(c.top)).field("rounds", static_cast<int>(c.rounds));
  w.field("confidence", c.confidence).field("resamples", static_cast<int>(c.resamples));
  w.field("seed", std::to_string(c.seed));
  w.key("speedups").begin_array();
  for (const auto& s : c.speedups) {
    w.begin_object().field("island", static_cast<int>(s.island)).field("target", s.target);
    w.field("rank", static_cast<int>(s.rank)).field("id", s.candidate_id).field("params", s.params);
    w.field("baseline", s.baseline).field("rounds", static_cast<int>(s.rounds)).field("speedup", s.speedup);
    w.field("ci_low", s.ci_low).field("ci_high", s.ci_high).field("candidate_ms", s.candidate_ms);
    w.field("baseline_ms", s.baseline_ms).field("campaign_speedup", s.campaign_speedup);
    w.field("verdict", s.verdict);
    w.field("text", describe_speedup({s.speedup, s.ci_low, s.ci_high}, s.baseline, s.rounds)).end_object();
  }
  w.end_array().end_object();
}

void write_baselines(jobs::JsonWriter& w, const CampaignReport& r) {
  w.key("baselines").begin_array();
  for (const auto& b : r.baselines) {
    w.begin_object().field("name", b.name).field("median_ms", b.median_ms).field("min_ms", b.min_ms);
    w.field("max_ms", b.max_ms).field("tasks", b.tasks).end_object();
  }
  w.end_array();
  w.key("baseline_failures").begin_array();
  for (const auto& f : r.baseline_failures) {
    w.begin_object().field("baseline", f.baseline).field("generation", f.generation).field("task", f.task);
    w.field("target", f.target).field("reason", f.reason).end_object();
  }
  w.end_array();
  w.key("best_per_target").begin_object();
  for (const auto& [target, t] : r.best_per_target) {
    w.key(target)
        .begin_object()
        .field("id", t.record.candidate_id)
        .field("generation", static_cast<int>(t.record.generation));
    w.field("island", static_cast<int>(t.record.island)).field("time_ms", t.record.time_median_ms);
    w.key("speedups").begin_object();
    for (const auto& [name, s] : t.speedups) w.field(name, s);
    w.end_object().end_object();
  }
  w.end_object();
}

void write_effects(jobs::JsonWriter& w, const CampaignReport& r) {
  w.key("parameter_effects").begin_array();
  for (const auto& e : r.parameter_effects) {
    w.begin_object().field("parameter", e.parameter).field("value", e.value).field("evaluated", e.evaluated);
    w.field("ok", e.ok).field("relative", e.relative).field("ci_low", e.ci_low).field("ci_high", e.ci_high);
    w.end_object();
  }
  w.end_array();
  w.key("lessons_summary").begin_array();
  for (const auto& l : r.lessons_summary) w.value(l);
  w.end_array();
}

}  // namespace

void write_report_json(std::ostream& out, const CampaignReport& r) {
  jobs::JsonWriter w(out);
  w.begin_object();
  w.field("schema_version", kReportSchemaVersion);
  write_context(w, r);
  w.field("campaign", r.campaign).field("generations", r.generations_done);
  w.field("generations_planned", r.generations_planned).field("evaluations", r.evaluations);
  w.key("status_counts");
  write_status_counts(w, r.status_counts);
  w.field("timing_noisy", r.noisy);
  w.key("per_generation").begin_array();
  for (const auto& g : r.generations) {
    w.begin_object().field("generation", g.generation).field("evaluated", g.evaluated);
    w.key("status_counts");
    write_status_counts(w, g.status_counts);
    w.field("timing_noisy", g.noisy);
    w.field("best_time_ms", g.best_ms).field("best_speedup", g.best_speedup).field("best_id", g.best_id);
    w.field("best_so_far_time_ms", g.best_so_far_ms).field("best_so_far_speedup", g.best_so_far_speedup);
    w.field("best_so_far_id", g.best_so_far_id).field("improvement", g.improvement);
    w.field("children", g.children).field("improved_children", g.improved_children);
    w.field("new_parameter_values", g.new_parameter_values);
    w.key("model_quality").begin_array();
    for (const auto& q : g.model_quality) {
      w.begin_object().field("island", q.island).field("target", q.target);
      w.field("rank_correlation", q.rank_correlation).field("predictions", q.predictions).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.key("speedup_scale").begin_object();  // the per-generation speedups' one reference time per target
  for (const auto& [target, e] : r.speedup_scale) {
    w.key(target).begin_object().field("reference_ms", e.ms).field("generation", e.generation);
    w.field("tasks", e.tasks).end_object();
  }
  w.end_object();
  write_baselines(w, r);
  write_effects(w, r);
  w.key("operators").begin_object();
  for (const auto& [op, c] : r.operators) {
    w.key(op).begin_object().field("children", c.children).field("ok", c.ok).field("improved", c.improved).end_object();
  }
  w.end_object();
  w.key("baseline_time_ms").begin_object();
  for (const auto& [name, ms] : r.baseline_ms) w.field(name, ms);
  w.end_object();
  if (r.best) {
    write_best(w, r);
  } else {
    w.key("best").value(jobs::kNaN);  // null: nothing ok yet
  }
  write_engine_json(w, r.best ? &*r.best : nullptr);

  write_confirmation(w, r);
  w.end_object();
  out << "\n";
}

void write_status_json(std::ostream& out, const CampaignReport& r) {
  jobs::JsonWriter w(out);
  w.begin_object();
  w.field("schema_version", kReportSchemaVersion);
  write_context(w, r);
  w.field("campaign", r.campaign)
      .field("state", r.generations_done >= r.generations_planned ? "done"
                      : r.running                                 ? "running"
                                                                  : "stopped");
  w.field("generations", r.generations_done).field("generations_planned", r.generations_planned);
  w.field("current_tasks", r.current_tasks).field("current_tasks_done", r.current_tasks_done);
  w.field("evaluations", r.evaluations);
  w.key("status_counts");
  write_status_counts(w, r.status_counts);
  w.field("best_time_ms", r.best ? r.best->time_median_ms : jobs::kNaN);
  w.field("best_id", r.best ? r.best->candidate_id : std::string());
  w.key("arrays").begin_array();
  for (const auto& a : r.arrays) {
    w.begin_object().field("job", a.job).field("island", a.target).field("tasks", a.tasks).field("known", a.known);
    w.field("pending", a.pending).field("running", a.running).field("done", a.done).field("failed", a.failed);
    w.end_object();
  }
  w.end_array();
  w.field("live_states_note", r.live_states_note);
  w.end_object();
  out << "\n";
}

}  // namespace kforge::scheduler
