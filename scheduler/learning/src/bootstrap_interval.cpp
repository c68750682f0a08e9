// Percentile bootstrap of the geometric-mean speedup over paired rounds (kforge/scheduler/learning/bootstrap.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "kforge/jobs/seed.hpp"
#include "kforge/scheduler/learning/bootstrap.hpp"

namespace kforge::scheduler {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A draw in [0, n) from the next SplitMix64 value: the high 32 bits scaled (n is a round count, far below 2^32),
// integer arithmetic only, so every platform draws the same indices for a seed.
std::size_t draw(std::uint64_t& state, std::size_t n) {
  state += jobs::kGoldenGamma;
  const std::uint64_t x = jobs::splitmix64_finalise(state) >> 32;
  return static_cast<std::size_t>((x * static_cast<std::uint64_t>(n)) >> 32);
}

// Type-7 quantile (R's default, numpy's "linear") of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

std::string two_decimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

SpeedupInterval bootstrap_speedup(const std::vector<double>& ratios, std::uint64_t seed, int resamples,
                                  double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) throw std::invalid_argument("confidence must lie in (0, 1)");
  if (resamples < 1) throw std::invalid_argument("resamples must be at least 1");
  std::vector<double> logs;
  for (double r : ratios) {
    if (!std::isfinite(r) || r <= 0.0) throw std::invalid_argument("a speedup ratio must be finite and positive");
    logs.push_back(std::log(r));
  }
  if (logs.empty()) return {kNaN, kNaN, kNaN};
  double sum = 0.0;
  for (double l : logs) sum += l;
  const double n = static_cast<double>(logs.size());
  const double estimate = std::exp(sum / n);
  if (logs.size() < 2) return {estimate, kNaN, kNaN};
  std::uint64_t state = jobs::splitmix64(seed);
  std::vector<double> means(static_cast<std::size_t>(resamples));
  for (auto& mean : means) {
    double s = 0.0;
    for (std::size_t i = 0; i < logs.size(); ++i) s += logs[draw(state, logs.size())];
    mean = s / n;
  }
  std::sort(means.begin(), means.end());
  const double tail = (1.0 - confidence) / 2.0;
  return {estimate, std::exp(quantile(means, tail)), std::exp(quantile(means, 1.0 - tail))};
}

SpeedupInterval relative_time_effect(const std::vector<double>& relative) {
  constexpr std::uint64_t kEffectSeed = 12;  // fixed: the same archive gives the same intervals every time
  constexpr int kEffectResamples = 2000;
  std::vector<double> positive;  // the bootstrap takes logs: a zero time (possible in a replay cache) has none
  for (double r : relative)
    if (std::isfinite(r) && r > 0.0) positive.push_back(r);
  return bootstrap_speedup(positive, kEffectSeed, kEffectResamples, 0.95);
}

std::string speedup_verdict(const SpeedupInterval& interval) {
  if (!(interval.low == interval.low) || !(interval.high == interval.high)) return "not_faster";
  if (interval.low > 1.0) return "faster";
  if (interval.high < 1.0) return "slower";
  return "not_faster";
}

std::string describe_speedup(const SpeedupInterval& interval, const std::string& baseline, int rounds) {
  if (!(interval.low == interval.low)) {
    return "not confirmed against " + baseline + " (" + std::to_string(rounds) + " paired round" +
           (rounds == 1 ? "" : "s") + ")";
  }
  const std::string range = "(interval " + two_decimals(interval.low) + "-" + two_decimals(interval.high) + ")";
  const std::string verdict = speedup_verdict(interval);
  if (verdict == "faster") return two_decimals(interval.estimate) + "x faster than " + baseline + " " + range;
  if (verdict == "slower") return two_decimals(interval.estimate) + "x, slower than " + baseline + " " + range;
  return "not faster than " + baseline + " " + range;
}

}  // namespace kforge::scheduler
