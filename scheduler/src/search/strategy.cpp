// make_strategy: the strategies by name. The "gp-*" variants are kept so that bench/search_efficiency can
// measure the choices behind "default".
#include <map>
#include <stdexcept>

#include "kforge/scheduler/strategy.hpp"
#include "strategy_internal.hpp"

namespace kforge::scheduler {
namespace {

const std::map<std::string, strategy::SurrogateTuning>& surrogate_variants() {
  static const std::map<std::string, strategy::SurrogateTuning> variants = [] {
    std::map<std::string, strategy::SurrogateTuning> v;
    strategy::SurrogateTuning base;
    v["gp-ei"] = base;
    strategy::SurrogateTuning iso = base;
    iso.ard = false;
    v["gp-iso"] = iso;
    strategy::SurrogateTuning explore = base;
    explore.exploration = 0.1;
    v["gp-explore"] = explore;
    strategy::SurrogateTuning local = base;
    local.local_tail_percent = 10;
    v["gp-local"] = local;
    strategy::SurrogateTuning few = base;
    few.initial_random = 4;
    v["gp-init4"] = few;
    strategy::SurrogateTuning many = base;
    many.initial_random = 16;
    v["gp-init16"] = many;
    strategy::SurrogateTuning aligned = base;
    aligned.alignment = true;
    v["gp-align"] = aligned;
    strategy::SurrogateTuning clipped = base;
    clipped.clip_quantile = 0.5;
    v["gp-clip"] = clipped;
    strategy::SurrogateTuning both = aligned;
    both.clip_quantile = 0.5;
    v["gp-align-clip"] = both;
    strategy::SurrogateTuning align5 = aligned;
    align5.initial_random = 5;
    v["gp-align-init5"] = align5;
    strategy::SurrogateTuning maximin = aligned;
    maximin.maximin_initial = true;
    v["gp-maximin"] = maximin;
    strategy::SurrogateTuning maximin5 = maximin;
    maximin5.initial_random = 5;
    v["gp-maximin5"] = maximin5;
    strategy::SurrogateTuning exploit = aligned;
    exploit.exploit_every = 3;
    v["gp-exploit3"] = exploit;
    strategy::SurrogateTuning early_ard = aligned;
    early_ard.ard_observations_per_feature = 2;
    v["gp-ard2"] = early_ard;
    strategy::SurrogateTuning local3 = maximin;
    local3.local_every = 3;
    v["gp-mm-local3"] = local3;
    strategy::SurrogateTuning local2 = maximin;
    local2.local_every = 2;
    v["gp-mm-local2"] = local2;
    strategy::SurrogateTuning local3r2 = local3;
    local3r2.local_radius = 2;
    v["gp-mm-local3r2"] = local3r2;
    // Measured best on the shared spaces (bench/search_efficiency, 20 repeats each).
    v["default"] = aligned;
    return v;
  }();
  return variants;
}

}  // namespace

std::vector<std::string> strategy_names() {
  std::vector<std::string> names{"random"};
  for (const auto& [name, tuning] : surrogate_variants()) names.push_back(name);
  return names;
}

std::unique_ptr<SearchStrategy> make_strategy(std::string_view name, std::vector<StrategyParameter> parameters,
                                              ValidityOracle valid, StrategyOptions options) {
  if (name == "random") return strategy::make_random_strategy(std::move(parameters), std::move(valid), options);
  const auto it = surrogate_variants().find(std::string(name));
  if (it == surrogate_variants().end()) {
    std::string known;
    for (const std::string& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown search strategy '" + std::string(name) + "' (known: " + known + ")");
  }
  return strategy::make_surrogate_strategy(it->first, std::move(parameters), std::move(valid), options, it->second);
}

}  // namespace kforge::scheduler
