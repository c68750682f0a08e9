#pragma once
// What earlier measurements of the same space (another GPU, another problem size, an earlier campaign or
// island) say about each configuration, as a rank score: only their order is trusted, never their times.
// Each prior set is ranked on its own (two GPUs' times are not comparable) and mapped to normal scores
// (fastest about -2.5, median 0, slowest and failed about +2.5); a configuration several sets measured gets
// their mean; one no set measured gets the distance-weighted mean of its nearest measured neighbours.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "strategy_space.hpp"

namespace kforge::scheduler::strategy {

class PriorScores {
 public:
  PriorScores() = default;
  // Entries outside the space (other parameters, values not in the lists, invalid) are skipped.
  PriorScores(EncodedSpace& space, const std::vector<PriorObservations>& sets);

  bool usable() const { return usable_; }
  std::size_t matched() const { return matched_; }  // prior entries that are configurations of this space
  double score(std::uint64_t key, const std::vector<double>& features) const;  // 0 without a prior
  bool measured(std::uint64_t key) const;  // some set measured this configuration itself

 private:
  struct Set {
    std::unordered_map<std::uint64_t, double> by_key;  // space key -> normal score
    std::vector<std::vector<double>> features;         // of the entries, for neighbours
    std::vector<double> scores;
  };
  std::vector<Set> sets_;
  std::size_t matched_ = 0;
  bool usable_ = false;
};

}  // namespace kforge::scheduler::strategy
