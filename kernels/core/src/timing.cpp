#include "kforge/kernels/timing.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <sstream>

#include "kforge/jobs/statistics.hpp"

namespace kforge::kernels {

TimingPolicy TimingPolicy::from(const jobs::EvalSettings& settings) {
  TimingPolicy p;
  p.warmup = std::max(0, settings.warmup);
  p.min_repeats = std::max(1, settings.min_repeats);
  p.max_repeats = std::max(p.min_repeats, settings.max_repeats);
  p.target_spread = settings.target_spread;
  p.time_cap_s = settings.time_cap_s;
  return p;
}

double median_of(std::vector<double> values) { return values.empty() ? 0.0 : jobs::median(std::move(values)); }

double spread_of(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const double median = median_of(values);
  return median > 0.0 ? (*hi - *lo) / median : 0.0;
}

TimedSamples sample_calls(const TimingPolicy& policy, const std::function<void()>& call,
                          const std::function<void()>& before, const std::function<std::string()>& after) {
  using Clock = std::chrono::steady_clock;
  TimedSamples out;
  for (int w = 0; w < policy.warmup; ++w) {
    if (before) before();
    call();
  }
  const auto started = Clock::now();
  for (;;) {
    if (before) before();
    const auto t0 = Clock::now();
    call();
    const auto t1 = Clock::now();
    out.samples_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (after) {
      out.failure = after();
      if (!out.failure.empty()) break;
    }
    const auto n = static_cast<int>(out.samples_ms.size());
    if (n >= policy.max_repeats) break;
    if (n >= policy.min_repeats && spread_of(out.samples_ms) < policy.target_spread) break;
    if (std::chrono::duration<double>(Clock::now() - started).count() >= policy.time_cap_s) break;
  }
  return out;
}

std::optional<std::string> beyond_physical_ceiling(double flop, double fastest_ms, double ceiling_flop_per_s) {
  const double rate = fastest_ms > 0.0 ? flop / (fastest_ms * 1e-3) : std::numeric_limits<double>::infinity();
  if (rate <= ceiling_flop_per_s) return std::nullopt;
  std::ostringstream out;
  out.precision(4);
  out << "faster than physically possible: " << rate / 1e9 << " GFLOP/s (" << flop << " flop in " << fastest_ms
      << " ms; ceiling " << ceiling_flop_per_s / 1e9 << " GFLOP/s)";
  return out.str();
}

TimeResult time_result(const TimedSamples& timed, double flop, double ceiling_flop_per_s) {
  TimeResult result;
  result.samples_ms = timed.samples_ms;
  if (!timed.failure.empty()) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = timed.failure;
    return result;
  }
  if (timed.samples_ms.empty()) return result;
  const double fastest = *std::min_element(timed.samples_ms.begin(), timed.samples_ms.end());
  if (auto evidence = beyond_physical_ceiling(flop, fastest, ceiling_flop_per_s)) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = *evidence;
  }
  return result;
}

jobs::Baseline baseline_from(const std::string& name, const TimedSamples& timed, const std::string& host) {
  jobs::Baseline b;
  b.name = name;
  b.time_median_ms = median_of(timed.samples_ms);
  if (!timed.samples_ms.empty()) b.time_min_ms = *std::min_element(timed.samples_ms.begin(), timed.samples_ms.end());
  b.sample_count = static_cast<std::int32_t>(timed.samples_ms.size());
  b.host = host;
  return b;
}

}  // namespace kforge::kernels
