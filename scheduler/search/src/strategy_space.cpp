// EncodedSpace: genome <-> value indexes, validity cache, enumeration of small spaces, neighbourhoods.
#include "strategy_space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kforge::scheduler::strategy {

EncodedSpace::EncodedSpace(std::vector<StrategyParameter> parameters, ValidityOracle valid,
                           std::uint64_t enumerate_limit)
    : parameters_(std::move(parameters)), oracle_(std::move(valid)) {
  if (parameters_.empty()) throw std::invalid_argument("search strategy: the space has no parameters");
  std::uint64_t product = 1;
  for (std::size_t d = 0; d < parameters_.size(); ++d) {
    const std::uint64_t n = parameters_[d].values.size();
    if (n == 0) throw std::invalid_argument("search strategy: parameter " + parameters_[d].name + " has no values");
    if (n > 1) varying_.push_back(d);
    if (product > std::numeric_limits<std::uint64_t>::max() / n)
      mixed_radix_ = false;
    else
      product *= n;
  }
  find_aligned();
  find_scaled();
  if (!oracle_) oracle_ = [](const jobs::Genome&) { return true; };
  if (mixed_radix_ && product <= enumerate_limit) enumerate();
}

namespace {

int factors_of_two(std::int64_t v) {
  if (v == 0) return -1;
  int n = 0;
  for (; v % 2 == 0 && n < 62; v /= 2) ++n;
  return n;
}

}  // namespace

void EncodedSpace::find_aligned() {
  alignment_.resize(dims());
  for (const std::size_t d : varying_) {
    std::vector<int> twos;
    for (const jobs::ParamValue& v : parameters_[d].values) {
      if (!std::holds_alternative<std::int64_t>(v) || std::get<std::int64_t>(v) == 0) break;
      twos.push_back(factors_of_two(std::get<std::int64_t>(v)));
    }
    if (twos.size() != parameters_[d].values.size()) continue;
    const auto [lo, hi] = std::minmax_element(twos.begin(), twos.end());
    if (*lo == *hi) continue;
    for (const int t : twos) alignment_[d].push_back(static_cast<double>(t - *lo) / (*hi - *lo));
    aligned_.push_back(d);
  }
}

void EncodedSpace::find_scaled() {
  log_value_.resize(dims());
  log_norm_.resize(dims());
  std::vector<std::size_t> scaled;
  for (const std::size_t d : varying_) {
    std::vector<double> logs;
    for (const jobs::ParamValue& v : parameters_[d].values) {
      if (!std::holds_alternative<std::int64_t>(v) || std::get<std::int64_t>(v) <= 0) break;
      logs.push_back(std::log2(static_cast<double>(std::get<std::int64_t>(v))));
    }
    if (logs.size() != parameters_[d].values.size()) continue;
    const auto [lo_it, hi_it] = std::minmax_element(logs.begin(), logs.end());
    const double lo = *lo_it, hi = *hi_it;
    if (hi - lo < 2.0) continue;  // values within a factor of 4: the index says as much
    log_value_[d] = logs;
    for (double& v : logs) v = (v - lo) / (hi - lo);
    log_norm_[d] = std::move(logs);
    scaled.push_back(d);
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t a = 0; a < scaled.size(); ++a) {
    for (std::size_t b = a + 1; b < scaled.size(); ++b) {
      pairs_.emplace_back(scaled[a], scaled[b]);
      const auto& x = log_value_[scaled[a]];
      const auto& y = log_value_[scaled[b]];
      lo = std::min(lo, *std::min_element(x.begin(), x.end()) + *std::min_element(y.begin(), y.end()));
      hi = std::max(hi, *std::max_element(x.begin(), x.end()) + *std::max_element(y.begin(), y.end()));
    }
  }
  if (!pairs_.empty()) product_lo_ = lo, product_span_ = std::max(hi - lo, 1e-9);
}

void EncodedSpace::enumerate() {
  Point p(dims(), 0);
  for (;;) {
    if (valid(p)) all_valid_.push_back(p);
    std::size_t d = 0;
    while (d < dims() && ++p[d] == values_in(d)) p[d++] = 0;
    if (d == dims()) break;
  }
  enumerated_ = true;
  validity_.clear();  // membership is now answered by the enumeration's keys below
  for (const Point& q : all_valid_) validity_.emplace(key(q), true);
}

jobs::Genome EncodedSpace::decode(const Point& p) const {
  jobs::Genome g;
  for (std::size_t d = 0; d < dims(); ++d) g.params[parameters_[d].name] = parameters_[d].values[p[d]];
  return g;
}

Point EncodedSpace::encode(const jobs::Genome& g) const {
  if (g.params.size() != dims()) {
    throw std::invalid_argument("search strategy: genome " + g.to_text() + " has " + std::to_string(g.params.size()) +
                                " parameters, the space has " + std::to_string(dims()));
  }
  Point p(dims(), -1);
  for (std::size_t d = 0; d < dims(); ++d) {
    const auto it = g.params.find(parameters_[d].name);
    if (it == g.params.end()) {
      throw std::invalid_argument("search strategy: genome " + g.to_text() + " lacks parameter " + parameters_[d].name);
    }
    const auto& values = parameters_[d].values;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i] == it->second) p[d] = static_cast<int>(i);
    }
    if (p[d] < 0) {
      throw std::invalid_argument("search strategy: value " + jobs::to_text(it->second) + " of parameter " +
                                  parameters_[d].name + " is not in its value list");
    }
  }
  return p;
}

std::uint64_t EncodedSpace::key(const Point& p) const {
  std::uint64_t k = mixed_radix_ ? 0 : 1469598103934665603ULL;
  for (std::size_t d = dims(); d-- > 0;) {
    if (mixed_radix_)
      k = k * static_cast<std::uint64_t>(values_in(d)) + static_cast<std::uint64_t>(p[d]);
    else
      k = (k ^ static_cast<std::uint64_t>(p[d] + 1)) * 1099511628211ULL;  // FNV-1a over the indexes
  }
  return k;
}

bool EncodedSpace::valid(const Point& p) {
  const std::uint64_t k = key(p);
  const auto it = validity_.find(k);
  if (it != validity_.end()) return it->second;
  if (enumerated_) return false;  // every valid point is in the cache already
  const bool ok = oracle_(decode(p));
  validity_.emplace(k, ok);
  return ok;
}

std::optional<Point> EncodedSpace::random_valid(std::mt19937_64& rng, int attempts) {
  if (enumerated_) {
    if (all_valid_.empty()) return std::nullopt;
    return all_valid_[std::uniform_int_distribution<std::size_t>(0, all_valid_.size() - 1)(rng)];
  }
  Point p(dims(), 0);
  for (int a = 0; a < attempts; ++a) {
    for (std::size_t d = 0; d < dims(); ++d) p[d] = std::uniform_int_distribution<int>(0, values_in(d) - 1)(rng);
    if (valid(p)) return p;
  }
  return std::nullopt;
}

std::vector<Point> EncodedSpace::neighbours(const Point& p) {
  std::vector<Point> out;
  for (const std::size_t d : varying_) {
    for (const int step : {-1, 1}) {
      Point q = p;
      q[d] += step;
      if (q[d] >= 0 && q[d] < values_in(d) && valid(q)) out.push_back(std::move(q));
    }
  }
  return out;
}

std::vector<double> EncodedSpace::features(const Point& p) const {
  std::vector<double> f;
  f.reserve(varying_.size());
  for (const std::size_t d : varying_) {
    if (log_scale_ && !log_norm_[d].empty()) {
      f.push_back(log_norm_[d][static_cast<std::size_t>(p[d])]);
    } else {
      f.push_back(static_cast<double>(p[d]) / (values_in(d) - 1));
    }
  }
  if (alignment_features_) {
    for (const std::size_t d : aligned_) f.push_back(alignment_[d][static_cast<std::size_t>(p[d])]);
  }
  if (product_features_) {
    for (const auto& [a, b] : pairs_) {
      const double sum = log_value_[a][static_cast<std::size_t>(p[a])] + log_value_[b][static_cast<std::size_t>(p[b])];
      f.push_back((sum - product_lo_) / product_span_);
    }
  }
  return f;
}

}  // namespace kforge::scheduler::strategy
