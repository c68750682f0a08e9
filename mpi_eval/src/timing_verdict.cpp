#include "timing_verdict.hpp"

#include <cmath>
#include <cstdio>

namespace kforge::mpi_eval {

bool misses_target_spread(const jobs::EvalRecord& r, double target_spread) {
  if (r.status != jobs::Status::ok || r.sample_count < 2 || !std::isfinite(r.time_spread_iqr)) return false;
  return !(r.time_spread_iqr < target_spread);
}

void judge_timing(jobs::EvalRecord& r, double target_spread) {
  r.timing_noisy = misses_target_spread(r, target_spread);
  if (!r.timing_noisy) return;
  char line[160];
  std::snprintf(line, sizeof line,
                "timing noisy: interquartile spread %.1f%% over %d samples, target under %.1f%% (max - min: %.1f%%)",
                100.0 * r.time_spread_iqr, static_cast<int>(r.sample_count), 100.0 * target_spread,
                100.0 * r.time_spread_rel);
  r.evidence += std::string("\n") + line;
}

}  // namespace kforge::mpi_eval
