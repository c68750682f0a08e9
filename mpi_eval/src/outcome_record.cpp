#include "outcome_record.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "child_protocol.hpp"
#include "kforge/jobs/statistics.hpp"
#include "kforge/mpi_eval/child_payload.hpp"

namespace kforge::mpi_eval {

std::string tail_of(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "[...]" + text.substr(text.size() - bytes);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

namespace {

using jobs::Status;

constexpr std::size_t kOutputEvidenceBytes = 4096;

std::string general(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

void fill_times(jobs::EvalRecord& r, const std::vector<double>& samples) {
  r.samples_ms = samples;
  r.sample_count = static_cast<std::int32_t>(samples.size());
  if (samples.empty()) return;
  const auto [fastest, slowest] = std::minmax_element(samples.begin(), samples.end());
  r.time_median_ms = jobs::median(samples);
  r.time_min_ms = *fastest;
  r.time_spread_rel = r.time_median_ms > 0 ? (*slowest - *fastest) / r.time_median_ms : jobs::kNaN;
  r.time_spread_iqr = jobs::interquartile_spread_rel(samples);
}

std::string ok_summary(const jobs::EvalRecord& r) {
  return "verified: max abs error " + general(r.max_abs_error) + ", max rel error " + general(r.max_rel_error) + "; " +
         std::to_string(r.sample_count) + " samples, median " + fixed(r.time_median_ms, 4) + " ms, min " +
         fixed(r.time_min_ms, 4) + " ms, spread " + fixed(100.0 * r.time_spread_rel, 1) + "%";
}

void apply_report(jobs::EvalRecord& r, const ChildReport& report) {
  r.max_abs_error = report.verify.max_abs_error;
  r.max_rel_error = report.verify.max_rel_error;
  if (report.verify.status != Status::ok) {
    r.status = report.verify.status;
    r.evidence = report.verify.evidence.empty() ? "verification failed without evidence" : report.verify.evidence;
    r.failed_case = report.verify.failed_case;  // joins the campaign's validation set (learning.hpp)
    return;
  }
  if (!report.time) {
    r.status = Status::infra_error;
    r.evidence = "the child verified the candidate but reported no timing";
    return;
  }
  fill_times(r, report.time->samples_ms);
  r.metrics = report.time->metrics;
  r.status = report.time->status;
  if (r.status == Status::ok && r.sample_count == 0) {
    r.status = Status::infra_error;
    r.evidence = "timing produced no samples";
    return;
  }
  r.evidence = ok_summary(r);
  if (!report.time->evidence.empty()) r.evidence += "\n" + report.time->evidence;
}

std::string out_of_memory_text(const std::string& message, const jobs::EvalSettings& s) {
  return message + " (memory limit " + std::to_string(s.memory_limit_mb) + " MiB)";
}

}  // namespace

void apply_outcome(jobs::EvalRecord& r, const ChildOutcome& o, const jobs::EvalSettings& s) {
  if (returned_normally(o)) {
    try {
      apply_report(r, decode_child_report(o.payload));
    } catch (const std::invalid_argument& e) {
      r.status = Status::crash;  // the payload is the child's word; a candidate can garble it
      r.evidence = std::string("sent an unreadable report: ") + e.what();
    }
  } else if (is_sandbox_error(o)) {
    r.status = Status::infra_error;
    r.evidence = o.describe();
  } else if (is_body_error(o) && error_message(o).starts_with(kCandidatePrefix)) {
    r.status = Status::crash;
    r.evidence = error_message(o).substr(kCandidatePrefix.size());
  } else if (is_body_error(o) && error_message(o).starts_with(kInfrastructurePrefix)) {
    r.status = Status::infra_error;
    r.evidence = error_message(o).substr(kInfrastructurePrefix.size());
  } else if (is_body_error(o)) {
    r.status = Status::crash;
    const std::string message = error_message(o);
    r.evidence = message.starts_with(kOutOfMemoryPrefix) ? out_of_memory_text(message, s) : o.describe();
  } else {
    r.status = o.end == ChildEnd::timed_out ? Status::timeout : Status::crash;
    r.evidence = o.describe();
  }
  if (!o.output_tail.empty()) {
    r.evidence += "\n--- candidate output (tail) ---\n" + tail_of(o.output_tail, kOutputEvidenceBytes);
  }
}

}  // namespace kforge::mpi_eval
