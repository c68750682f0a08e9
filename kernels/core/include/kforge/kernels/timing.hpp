#pragma once
// The timing policy shared by candidates and baselines (EvalSettings: warmup, min/max repeats, target spread,
// time cap), and the physical-ceiling check that flags results no CPU core could produce.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kforge/jobs/manifest.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels {

struct TimingPolicy {
  int warmup = 1;
  int min_repeats = 3;
  int max_repeats = 20;
  double target_spread = 0.05;
  double time_cap_s = 2.0;
  static TimingPolicy from(const jobs::EvalSettings& settings);
};

struct TimedSamples {
  std::vector<double> samples_ms;
  std::string failure;  // what `after` reported about a call; sampling stopped there
};

// Warm-up calls, then timed calls until min_repeats samples have a spread under target_spread, or
// max_repeats samples, or time_cap_s spent (at least one sample). steady_clock surrounds `call` only:
// `before` (e.g. poisoning the output) and `after` (a check returning "" when fine) run outside the timer.
TimedSamples sample_calls(const TimingPolicy& policy, const std::function<void()>& call,
                          const std::function<void()>& before = {}, const std::function<std::string()>& after = {});

double median_of(std::vector<double> values);         // jobs::median, but 0 for no values
double spread_of(const std::vector<double>& values);  // (max - min) / median; 0 for fewer than 2 values

// One CPU core does far below 1 TFLOP/s; a faster fp32 kernel skipped work or cheated the timer.
inline constexpr double kHostCeilingFlopPerS = 1e12;

// Seeds of the timing and baseline inputs: the same ctx.seed as verification, a different stream (xor-ed in).
inline constexpr std::uint64_t kTimingStream = 0x9e3779b97f4a7c15ull;
inline constexpr std::uint64_t kBaselineStream = 0xc2b2ae3d27d4eb4full;

// Evidence ("faster than physically possible: X GFLOP/s ...") when flop / fastest sample exceeds the ceiling.
std::optional<std::string> beyond_physical_ceiling(double flop, double fastest_ms, double ceiling_flop_per_s);

// The verdict on a candidate's timed samples: cheat_detected when a call failed its spot check while being
// timed (right in verify(), wrong under the clock) or the fastest call beats the physical ceiling.
TimeResult time_result(const TimedSamples& timed, double flop, double ceiling_flop_per_s);

// A baseline's figures from its timed samples.
jobs::Baseline baseline_from(const std::string& name, const TimedSamples& timed, const std::string& host);

}  // namespace kforge::kernels
