#pragma once
// Constructors of the strategies behind make_strategy().
#include <memory>

#include "kforge/scheduler/search/strategy.hpp"

namespace kforge::scheduler::strategy {

// Knobs of the surrogate strategy; the named variants in strategy.cpp differ only here.
struct SurrogateTuning {
  int initial_random = 8;           // random configurations before the surrogate is trusted
  double exploration = 0.0;         // EI margin xi, in standardised log-time units
  int local_tail_percent = 0;       // with a budget hint: the last percent of it only looks next to the incumbent
  bool ard = true;                  // per-parameter lengthscales once there is enough data
  bool alignment = false;           // add factors-of-two features (EncodedSpace::features)
  double clip_quantile = 1.0;       // model min(log time, this quantile of the observed): focus on the fast region
  bool maximin_initial = false;     // initial points spread out (greedy maximin over features) instead of random
  bool stratified_initial = false;  // initial points balance each parameter's value bins (Latin-hypercube-like)
  bool log_scale = false;           // EncodedSpace::use_log_scale: wide integer ranges placed by log2(value)
  bool products = false;            // EncodedSpace::use_product_features: log2 of each pair's product
  int local_every = 0;              // every k-th model pick looks only within local_radius of the incumbent
  int local_radius = 1;             // parameters that may differ from the incumbent in such a pick
  // With a usable prior (StrategyOptions::prior): the initial design is the prior's prior_initial best
  // configurations and prior_random random ones; the model is then log time = a + b * prior score + GP
  // residual, with a and b >= 0 refitted to every observation, so a misleading prior's b falls to 0.
  int prior_initial = 2;
  int prior_random = 2;
  double prior_trust = 0.0;        // the prior has a say once its correlation with time clears prior_trust / sqrt(n)
  bool prior_spread = false;       // the warm design's other picks are the cold design's (maximin), not random
  double prior_batch_share = 0.0;  // > 0: the prior's blind picks are at most this share of one ask
  // Hedge (issue 32): while the model predicts its own picks poorly (rank correlation of predicted and measured
  // log time below hedge_below, or fewer than 4 such pairs yet), every hedge_every-th pick is space-filling
  // (maximin) instead of the model's, so a space the model cannot learn is still searched at least as widely
  // as random search would.
  int hedge_every = 0;
  double hedge_below = 0.3;
};

std::unique_ptr<SearchStrategy> make_random_strategy(std::vector<StrategyParameter> parameters, ValidityOracle valid,
                                                     const StrategyOptions& options);
std::unique_ptr<SearchStrategy> make_surrogate_strategy(std::string name, std::vector<StrategyParameter> parameters,
                                                        ValidityOracle valid, const StrategyOptions& options,
                                                        const SurrogateTuning& tuning);

}  // namespace kforge::scheduler::strategy
