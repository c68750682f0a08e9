#include "kforge/jobs/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>

namespace kforge::jobs {

double median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double upper_median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

double interquartile_spread_rel(std::vector<double> samples) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (samples.size() < 2) return nan;
  for (const double s : samples) {
    if (std::isnan(s)) return nan;
  }
  std::sort(samples.begin(), samples.end());
  const auto quantile = [&](double p) {
    const double at = p * static_cast<double>(samples.size() - 1);
    const auto below = static_cast<std::size_t>(at);
    const std::size_t above = std::min(below + 1, samples.size() - 1);
    return samples[below] + (at - static_cast<double>(below)) * (samples[above] - samples[below]);
  };
  const double middle = quantile(0.5);
  return middle > 0 ? (quantile(0.75) - quantile(0.25)) / middle : nan;
}

namespace {

// Ranks 1..n, ties given their mean rank (std::sort orders +inf after every finite value).
std::vector<double> mean_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = 0.5 * static_cast<double>(i + j) + 1.0;
    i = j + 1;
  }
  return rank;
}

}  // namespace

double rank_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x.size() != y.size() || x.size() < 3) return nan;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) return nan;
  }
  const std::vector<double> rx = mean_ranks(x), ry = mean_ranks(y);
  const double mean = 0.5 * static_cast<double>(x.size() + 1);
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx <= 0.0 || syy <= 0.0) return nan;
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace kforge::jobs
