// PriorScores: rank-based scores of configurations from earlier measurements of the same space.
#include "strategy_prior.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kforge::scheduler::strategy {
namespace {

constexpr std::size_t kMinUsable = 5;            // fewer matched entries than this say nothing reliable
constexpr std::size_t kNeighbours = 5;           // for configurations no set measured
constexpr std::size_t kMaxNeighbourSet = 20000;  // larger sets cover the space; unmatched points score 0
constexpr double kFailedScore = 2.5;             // a failed configuration ranks with the slowest
constexpr double kInf = std::numeric_limits<double>::infinity();

// Inverse of the standard normal CDF (Acklam's rational approximation; plenty for ranks).
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normal_quantile(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

}  // namespace

PriorScores::PriorScores(EncodedSpace& space, const std::vector<PriorObservations>& sets) {
  for (const PriorObservations& prior : sets) {
    std::vector<std::pair<double, Point>> entries;
    for (const auto& [genome, time_ms] : prior.measured) {
      try {
        Point p = space.encode(genome);
        if (space.valid(p)) entries.emplace_back(std::isfinite(time_ms) && time_ms > 0 ? time_ms : kInf, std::move(p));

      } catch (const std::invalid_argument&) {
        // another space's configuration: it says nothing about this one
      }
    }
    std::vector<double> finite;
    for (const auto& e : entries) {
      if (std::isfinite(e.first)) finite.push_back(e.first);
    }
    if (finite.size() < kMinUsable) continue;
    std::sort(finite.begin(), finite.end());
    Set set;
    for (const auto& [time_ms, p] : entries) {
      double s = kFailedScore;
      if (std::isfinite(time_ms)) {
        // mid-rank of ties, mapped to a normal score
        const auto lo = std::lower_bound(finite.begin(), finite.end(), time_ms) - finite.begin();
        const auto hi = std::upper_bound(finite.begin(), finite.end(), time_ms) - finite.begin();
        s = normal_quantile((0.5 * static_cast<double>(lo + hi)) / static_cast<double>(finite.size()));
      }
      if (!set.by_key.emplace(space.key(p), s).second) continue;  // the first measurement stands
      if (entries.size() <= kMaxNeighbourSet) {
        set.features.push_back(space.features(p));
        set.scores.push_back(s);
      }
    }
    matched_ += set.by_key.size();
    sets_.push_back(std::move(set));
  }
  usable_ = !sets_.empty();
}

bool PriorScores::measured(std::uint64_t key) const {
  return std::any_of(sets_.begin(), sets_.end(), [key](const Set& set) { return set.by_key.count(key) != 0; });
}

double PriorScores::score(std::uint64_t key, const std::vector<double>& features) const {
  if (sets_.empty()) return 0.0;
  double total = 0.0;
  for (const Set& set : sets_) {
    const auto it = set.by_key.find(key);
    if (it != set.by_key.end()) {
      total += it->second;
      continue;
    }
    // Not measured by this set: inverse-distance mean of its nearest measured configurations.
    std::vector<std::pair<double, double>> nearest;  // (squared distance, score)
    for (std::size_t i = 0; i < set.features.size(); ++i) {
      double d2 = 0.0;
      for (std::size_t d = 0; d < features.size(); ++d)
        d2 += (features[d] - set.features[i][d]) * (features[d] - set.features[i][d]);
      nearest.emplace_back(d2, set.scores[i]);
    }
    const std::size_t k = std::min(kNeighbours, nearest.size());
    std::partial_sort(nearest.begin(), nearest.begin() + static_cast<std::ptrdiff_t>(k), nearest.end());
    double weights = 0.0, sum = 0.0;
    for (std::size_t i = 0; i < k; ++i) {
      const double w = 1.0 / (std::sqrt(nearest[i].first) + 1e-3);
      weights += w;
      sum += w * nearest[i].second;
    }
    total += weights > 0 ? sum / weights : 0.0;
  }
  return total / static_cast<double>(sets_.size());
}

}  // namespace kforge::scheduler::strategy
