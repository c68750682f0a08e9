// validate_campaign and check_space_satisfiable (campaign_validation.hpp): the checks before anything is written.
#include "kforge/scheduler/driver/campaign_validation.hpp"

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/engine/model_weights.hpp"
#include "kforge/scheduler/driver/engine_kernel_import.hpp"
#include "kforge/scheduler/search/expression.hpp"

namespace kforge::scheduler {
namespace {

struct ConstraintTally {
  std::unique_ptr<Expression> expression;
  bool ever_true = false;
  bool always_divides_by_zero = true;
  std::string zero_example;  // a configuration for which it divides by zero
};

// Calls visit(genome) for every configuration of the space (odometer order), or for `draws` random ones.
template <typename Visit>
void for_configurations(const std::vector<ParameterSpec>& params, bool exhaustive, int draws, Visit visit) {
  jobs::Genome g;
  if (!exhaustive) {
    std::mt19937_64 rng(0x6b666f726765ULL);  // fixed: validation gives the same answer every time
    for (int d = 0; d < draws; ++d) {
      for (const auto& p : params)
        g.params[p.name] = p.values[std::uniform_int_distribution<std::size_t>(0, p.values.size() - 1)(rng)];
      if (!visit(g)) return;
    }
    return;
  }
  std::vector<std::size_t> at(params.size(), 0);
  for (;;) {
    for (std::size_t i = 0; i < params.size(); ++i) g.params[params[i].name] = params[i].values[at[i]];
    if (!visit(g)) return;
    std::size_t i = 0;
    while (i < params.size() && ++at[i] == params[i].values.size()) at[i++] = 0;
    if (i == params.size()) return;
  }
}

}  // namespace

void check_space_satisfiable(const CampaignConfig& campaign, const SearchSpace& space) {
  const auto& constraints = campaign.space.constraints;
  if (constraints.empty()) return;
  NameKinds kinds;
  for (const auto& p : campaign.space.parameters) {
    unsigned k = 0;
    for (const auto& v : p.values) k |= kind_of(v);
    kinds[p.name] = k;
  }
  std::vector<ConstraintTally> tallies;
  for (const auto& c : constraints) {
    tallies.emplace_back();
    tallies.back().expression = std::make_unique<Expression>(c.expression, kinds);
  }
  const bool exhaustive = space.cardinality() <= kExhaustiveCheckLimit;
  bool some_valid = false;
  for_configurations(campaign.space.parameters, exhaustive, kSampledChecks, [&](const jobs::Genome& g) {
    bool all = true;
    for (auto& t : tallies) {
      bool holds = false;
      try {
        holds = truthy(t.expression->evaluate(g));
        t.always_divides_by_zero = false;
      } catch (const std::domain_error&) {  // division by zero: this configuration is not valid
        if (t.zero_example.empty()) t.zero_example = g.to_text();
      }
      t.ever_true = t.ever_true || holds;
      all = all && holds;
    }
    some_valid = some_valid || all;
    return true;  // visit all: each constraint's own verdict needs every configuration
  });
  const std::string scope =
      exhaustive ? "of the " + std::to_string(static_cast<long long>(space.cardinality())) + " configurations"
                 : "of " + std::to_string(kSampledChecks) + " random configurations (of " +
                       std::to_string(static_cast<long long>(space.cardinality())) + ")";
  const std::string allowed = "constraints that some configuration of space.parameters satisfies";
  for (std::size_t i = 0; i < tallies.size(); ++i) {
    const ConstraintTally& t = tallies[i];
    const std::string key = "space.constraints[" + std::to_string(i) + "]";
    if (t.always_divides_by_zero)
      throw ConfigError(
          constraints[i].where, key,
          "\"" + constraints[i].expression + "\" divides by zero for every configuration (e.g. " + t.zero_example + ")",
          "an expression that does not divide by zero, e.g. guard it: 'VEC != 0 and NR % VEC == 0'");
    if (!t.ever_true)
      throw ConfigError(constraints[i].where, key,
                        "\"" + constraints[i].expression + "\" is false for every one " + scope, allowed);
  }
  if (!some_valid)
    throw ConfigError(campaign.location_of("space.constraints"), "space.constraints",
                      "no one " + scope + " satisfies all constraints together", allowed);
}

// An engine campaign's weights file holds exactly the model's tensors (names, shapes, dtypes): every candidate and
// baseline would otherwise fail alike, after the whole generation was planned and submitted.
void check_engine_weights(const CampaignConfig& campaign) {
  const jobs::ModelSpec& model = campaign.eval.engine.model;
  if (campaign.eval.engine.empty() || (model.weights_file.empty() && model.path.empty())) return;
  const std::string key = model.path.empty() ? "model.weights" : "model.path";
  try {
    kernels::engine::check_weights(model);
  } catch (const std::exception& e) {
    throw ConfigError(campaign.location_of(key), key, e.what(),
                      "every tensor of the model, named and shaped as docs/engines.md lists, in F32, BF16 or F16");
  }
}

// search.initial: each genome's values were checked against the lists when it was read; here the constraints,
// naming the first one it breaks.
void check_initial_genomes(const CampaignConfig& campaign, const SearchSpace& space) {
  for (std::size_t i = 0; i < campaign.search.initial.size(); ++i) {
    const auto& initial = campaign.search.initial[i];
    if (space.contains(initial.genome)) continue;
    std::string broken;
    for (const ConstraintSpec& c : campaign.space.constraints) {
      if (SearchSpace(SpaceSpec{campaign.space.parameters, {c}}).contains(initial.genome)) continue;
      broken = c.expression;
      break;
    }
    throw ConfigError(
        initial.where, "search.initial[" + std::to_string(i) + "]",
        initial.genome.to_text() + " breaks the constraint " + (broken.empty() ? "?" : "\"" + broken + "\""),
        "a genome for which every space.constraints entry holds");
  }
}

SearchSpace validate_campaign(const CampaignConfig& campaign, const SiteConfig& site) {
  check_campaign_against_family(campaign, site);
  check_engine_weights(campaign);
  SearchSpace space(campaign.space);  // constraint syntax and names, at the constraint's location
  check_space_satisfiable(campaign, space);
  check_initial_genomes(campaign, space);
  check_kernels_from(campaign, space);
  check_site_serves_campaign(site, campaign);
  return space;
}

}  // namespace kforge::scheduler
