#pragma once
// Bootstrap intervals for paired speedups (docs/cli.md, "kforge confirm"). A confirmation times a candidate and
// a baseline in the same round; each round gives one ratio baseline_ms / candidate_ms. The speedup is the
// geometric mean of those ratios, and its interval the percentile bootstrap over rounds: resample the rounds
// with replacement, recompute the geometric mean, take the (1-c)/2 and (1+c)/2 quantiles (linear interpolation
// between order statistics). Seeded with SplitMix64, so a seed gives the same interval on every machine.
#include <cstdint>
#include <string>
#include <vector>

namespace kforge::scheduler {

inline constexpr int kDefaultBootstrapResamples = 10000;

struct SpeedupInterval {
  double estimate;  // geometric mean of the ratios; NaN without any ratio
  double low;       // NaN with fewer than 2 ratios: one round says nothing about its spread
  double high;
};

// ratios: finite and > 0 (others throw std::invalid_argument). confidence in (0, 1).
SpeedupInterval bootstrap_speedup(const std::vector<double>& ratios, std::uint64_t seed,
                                  int resamples = kDefaultBootstrapResamples, double confidence = 0.95);

// A parameter value's effect on time (kforge report's parameter effects and the archive's /lessons/parameters
// alike): the geometric mean of `relative` (each ok evaluation's time over its target's median ok time) and its
// 95% interval, from a fixed seed so that one archive always gives the same figures. Ratios that are not finite
// and positive (a zero time) are left out.
SpeedupInterval relative_time_effect(const std::vector<double>& relative);

// "faster": the whole interval is above 1; "slower": below 1; "not_faster": it includes 1 (or is unknown).
std::string speedup_verdict(const SpeedupInterval& interval);

// What a person reads: "2.10x faster than reference (interval 1.95-2.31)", "not faster than openblas (interval
// 0.93-1.08)", "0.52x, slower than openblas (interval 0.48-0.57)", "not confirmed against reference (1 paired
// round)".
std::string describe_speedup(const SpeedupInterval& interval, const std::string& baseline, int rounds);

}  // namespace kforge::scheduler
