// Record and lesson equality (NaN means "not measured", so two unmeasured fields are equal) and the UTC timestamp.
#include "kforge/jobs/record.hpp"

#include "kforge/jobs/lessons.hpp"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <tuple>

namespace kforge::jobs {
namespace {

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

bool same(const std::vector<double>& a, const std::vector<double>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](double x, double y) { return same(x, y); });
}

auto identity_fields(const EvalRecord& r) {
  return std::tie(r.candidate_id, r.family, r.backend, r.params, r.parents, r.op, r.generation, r.island, r.target,
                  r.status, r.sample_count, r.timing_noisy, r.registers, r.shared_bytes, r.spill_bytes, r.host,
                  r.gpu_model, r.slurm_job_id, r.slurm_array_task, r.rank, r.evaluated_at, r.evidence, r.failed_case,
                  r.source, r.ptx);
}

}  // namespace

bool EvalRecord::operator==(const EvalRecord& o) const {
  return identity_fields(*this) == identity_fields(o) && same(time_median_ms, o.time_median_ms) &&
         same(time_min_ms, o.time_min_ms) && same(time_spread_rel, o.time_spread_rel) &&
         same(time_spread_iqr, o.time_spread_iqr) && same(samples_ms, o.samples_ms) && same(speedup, o.speedup) &&
         same(max_abs_error, o.max_abs_error) && same(max_rel_error, o.max_rel_error) &&
         same(compile_ms, o.compile_ms) && same(harness_ms, o.harness_ms) && metrics == o.metrics;
}

bool Metric::operator==(const Metric& o) const {
  return std::tie(name, unit) == std::tie(o.name, o.unit) && same(value, o.value);
}

bool ParameterLesson::operator==(const ParameterLesson& o) const {
  return std::tie(parameter, value, evaluated, failed) == std::tie(o.parameter, o.value, o.evaluated, o.failed) &&
         same(median_ms, o.median_ms) && same(best_ms, o.best_ms) && same(relative_median, o.relative_median) &&
         same(relative, o.relative) && same(ci_low, o.ci_low) && same(ci_high, o.ci_high);
}

bool Baseline::operator==(const Baseline& o) const {
  return std::tie(name, sample_count, host, task) == std::tie(o.name, o.sample_count, o.host, o.task) &&
         same(time_median_ms, o.time_median_ms) && same(time_min_ms, o.time_min_ms);
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::string iso8601_now() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

}  // namespace kforge::jobs
