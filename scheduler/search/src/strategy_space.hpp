#pragma once
// The discrete space a strategy searches, encoded as one value index per parameter. Strategies work on these
// points; genomes appear only at ask()/tell(). Validity answers are cached (the oracle may be costly).
#include <cstdint>
#include <optional>
#include <random>
#include <unordered_map>
#include <vector>

#include "kforge/scheduler/search/strategy.hpp"

namespace kforge::scheduler::strategy {

using Point = std::vector<int>;  // value index per parameter

class EncodedSpace {
 public:
  EncodedSpace(std::vector<StrategyParameter> parameters, ValidityOracle valid, std::uint64_t enumerate_limit);

  std::size_t dims() const { return parameters_.size(); }
  int values_in(std::size_t dim) const { return static_cast<int>(parameters_[dim].values.size()); }
  jobs::Genome decode(const Point& p) const;
  Point encode(const jobs::Genome& g) const;  // throws std::invalid_argument naming the parameter or value
  std::uint64_t key(const Point& p) const;    // unique per point (mixed radix; hashed for huge spaces)
  bool valid(const Point& p);

  bool enumerated() const { return enumerated_; }
  const std::vector<Point>& all_valid() const { return all_valid_; }  // every valid point when enumerated()
  std::optional<Point> random_valid(std::mt19937_64& rng, int attempts);
  std::vector<Point> neighbours(const Point& p);  // valid points one value step away in one parameter
  // Ordinal features in [0, 1], one per parameter with more than one value; then, per integer parameter whose
  // values differ in how many factors of two they hold, that count (normalised): on GPUs, sizes that are
  // multiples of a warp or a wavefront behave unlike their ordinal neighbours.
  std::vector<double> features(const Point& p) const;
  // With log_scale, an integer parameter whose positive values span a factor of 4 or more is placed by the
  // logarithm of its value instead of its index (16 and 32 threads differ more than 240 and 256). With
  // products, one more feature per pair of such parameters: the logarithm of their product (threads per
  // block, elements per thread), since kernels often respond to a product more than to either factor.
  std::size_t feature_count() const {
    return varying_.size() + (alignment_features_ ? aligned_.size() : 0) + (product_features_ ? pairs_.size() : 0);
  }
  void use_alignment_features(bool on) { alignment_features_ = on; }
  void use_log_scale(bool on) { log_scale_ = on; }
  void use_product_features(bool on) { product_features_ = on; }

 private:
  void enumerate();
  void find_aligned();
  void find_scaled();

  std::vector<StrategyParameter> parameters_;
  ValidityOracle oracle_;
  std::vector<std::size_t> varying_;            // parameters with more than one value
  std::vector<std::size_t> aligned_;            // integer parameters whose values' factors of two differ
  std::vector<std::vector<double>> alignment_;  // per parameter and value index: normalised factors of two
  bool alignment_features_ = false;
  std::vector<std::vector<double>> log_value_;              // per parameter and value index: log2(value), when scaled
  std::vector<std::vector<double>> log_norm_;               // the same mapped onto [0, 1]
  std::vector<std::pair<std::size_t, std::size_t>> pairs_;  // scaled parameter pairs for product features
  double product_lo_ = 0.0, product_span_ = 1.0;            // normalisation of log2 products over every pair
  bool log_scale_ = false;
  bool product_features_ = false;
  bool mixed_radix_ = true;  // the product of the list sizes fits 64 bits
  bool enumerated_ = false;
  std::vector<Point> all_valid_;
  std::unordered_map<std::uint64_t, bool> validity_;
};

}  // namespace kforge::scheduler::strategy
