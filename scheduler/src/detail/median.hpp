#pragma once
// The median of a list of measurements (the mean of the middle two for an even count); NaN when empty.
#include <algorithm>
#include <vector>

#include "kforge/jobs/record.hpp"

namespace kforge::scheduler::detail {

inline double median(std::vector<double> v) {
  if (v.empty()) return jobs::kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace kforge::scheduler::detail
