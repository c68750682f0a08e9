#pragma once
// Constructors of the strategies behind make_strategy().
#include <memory>

#include "kforge/scheduler/strategy.hpp"

namespace kforge::scheduler::strategy {

// Knobs of the surrogate strategy; the named variants in strategy.cpp differ only here.
struct SurrogateTuning {
  int initial_random = 8;        // random configurations before the surrogate is trusted
  double exploration = 0.0;      // EI margin xi, in standardised log-time units
  int local_tail_percent = 0;    // with a budget hint: the last percent of it only looks next to the incumbent
  bool ard = true;               // per-parameter lengthscales once there is enough data
  bool alignment = false;        // add factors-of-two features (EncodedSpace::features)
  double clip_quantile = 1.0;    // model min(log time, this quantile of the observed): focus on the fast region
  bool maximin_initial = false;  // initial points spread out (greedy maximin over features) instead of random
  bool stratified_initial = false;  // initial points balance each parameter's value bins (Latin-hypercube-like)
};

std::unique_ptr<SearchStrategy> make_random_strategy(std::vector<StrategyParameter> parameters, ValidityOracle valid,
                                                     const StrategyOptions& options);
std::unique_ptr<SearchStrategy> make_surrogate_strategy(std::string name, std::vector<StrategyParameter> parameters,
                                                        ValidityOracle valid, const StrategyOptions& options,
                                                        const SurrogateTuning& tuning);

}  // namespace kforge::scheduler::strategy
