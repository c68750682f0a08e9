#pragma once
// Bookkeeping every strategy shares: the encoded space, the random stream, and what was asked or told
// (a configuration is never paid for twice).
#include <cstdint>
#include <random>
#include <unordered_set>

#include "kforge/jobs/seed.hpp"
#include "strategy_space.hpp"

namespace kforge::scheduler::strategy {

using jobs::splitmix64;

class StrategyState {
 public:
  StrategyState(std::vector<StrategyParameter> parameters, ValidityOracle valid, const StrategyOptions& options)
      : space(std::move(parameters), std::move(valid), options.enumerate_limit), rng(splitmix64(options.seed)) {}

  bool seen(const Point& p) const { return seen_.count(space.key(p)) != 0; }
  bool mark_seen(const Point& p) { return seen_.insert(space.key(p)).second; }  // false when seen before
  std::size_t seen_count() const { return seen_.size(); }

  EncodedSpace space;
  std::mt19937_64 rng;

 private:
  std::unordered_set<std::uint64_t> seen_;
};

// Tries this many random draws through the oracle before deciding a large space has no unseen valid point.
constexpr int kSampleAttempts = 20000;

}  // namespace kforge::scheduler::strategy
