#include "kforge/scheduler/search/strategy_children.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "kforge/jobs/statistics.hpp"
#include "kforge/scheduler/search/mix_seed.hpp"
#include "kforge/scheduler/search/strategy.hpp"
#include "kforge/scheduler/search/strategy_prior_sources.hpp"

namespace kforge::scheduler {
namespace {

// The campaign's names for the strategies of strategy.hpp.
std::string strategy_name(const std::string& configured) { return configured == "surrogate" ? "default" : configured; }

// Tells the strategy every evaluation of this target bred from the genome alone (an agent's source-level child
// shares its parent's genome but not its time) once, in archive order, so the model is the same on a resume.
// With `scored_op`, each generation's children of that op are first predicted (SearchStrategy::expect) from the
// generations before it, so that model_quality() says how well the model foresaw what it proposed.
// Returns the lie for the proposals still to be measured: the median of the measured times (+inf before any).
double tell_archive(SearchStrategy& strategy, const ArchiveView& archive, const std::string& target,
                    const std::string& scored_op = "") {
  std::set<std::string> told;
  std::vector<double> measured;
  for (const auto& g : archive.generations()) {
    std::vector<const jobs::EvalRecord*> fresh;
    std::vector<jobs::Genome> picks;
    for (const auto& r : g.records) {
      if (r.target != target || told.count(r.params)) continue;
      const jobs::Candidate* c = archive.candidate(r.candidate_id);
      if (c && !c->source.empty()) continue;
      fresh.push_back(&r);
      if (!scored_op.empty() && c && c->op == scored_op) picks.push_back(jobs::Genome::from_text(r.params));
    }
    try {
      if (!picks.empty()) strategy.expect(picks);
    } catch (const std::invalid_argument&) {
      // a genome outside the current space: nothing to predict
    }
    for (const jobs::EvalRecord* r : fresh) {
      if (!told.insert(r->params).second) continue;
      try {
        strategy.tell(jobs::Genome::from_text(r->params), jobs::fitness_ms(*r));
        if (std::isfinite(jobs::fitness_ms(*r))) measured.push_back(jobs::fitness_ms(*r));
      } catch (const std::invalid_argument&) {
        // a genome outside the current space (an agent's parameters): nothing the model can place
      }
    }
  }
  return measured.empty() ? std::numeric_limits<double>::infinity() : jobs::upper_median(std::move(measured));
}

// The island's strategy as generation `generation` plans it: its seed, search.prior, the other islands' rankings.
std::unique_ptr<SearchStrategy> island_strategy(const CampaignConfig& campaign, const SearchSpace& space,
                                                const ArchiveView& archive, int generation, int island, int batch = 1) {
  const std::string& target = campaign.targets.at(static_cast<std::size_t>(island));
  std::vector<StrategyParameter> parameters;
  for (const auto& p : space.parameters()) parameters.push_back({p.name, p.values});
  StrategyOptions options;
  options.seed = mix_seed(campaign.search.seed ^ 0x7374726174656779ULL, static_cast<std::uint64_t>(generation),
                          static_cast<std::uint64_t>(island));
  options.budget_hint = campaign.search.generations * campaign.search.offspring;
  options.prior = read_search_prior(campaign.search.prior);  // search.prior: a warm start, ranks only
  options.batch = batch;
  // The other islands of this campaign measured the same space on other targets: their rankings are a prior
  // too (an island on Blackwell learns from the Hopper island), weighed by the strategy like search.prior.
  std::map<std::string, PriorObservations> islands;
  for (const auto& g : archive.generations()) {
    for (const auto& r : g.records) {
      const jobs::Candidate* c = archive.candidate(r.candidate_id);
      if (r.target == target || (c && !c->source.empty())) continue;
      PriorObservations& set = islands[r.target];
      set.source = "island " + r.target;
      set.measured.emplace_back(jobs::Genome::from_text(r.params), jobs::fitness_ms(r));
    }
  }
  for (auto& [other, set] : islands) options.prior.push_back(std::move(set));
  return make_strategy(
      strategy_name(campaign.search.strategy), std::move(parameters),
      [&space](const jobs::Genome& g) { return space.contains(g); }, options);
}

}  // namespace

std::vector<jobs::Candidate> strategy_children(const CampaignConfig& campaign, const SearchSpace& space,
                                               const ArchiveView& archive, int generation, int island, int count,
                                               std::set<std::string>& seen) {
  const std::string& target = campaign.targets.at(static_cast<std::size_t>(island));
  auto strategy = island_strategy(campaign, space, archive, generation, island, count);
  // The archive's measurements score the model's earlier proposals (its hedge depends on that score); the lies
  // told below while this generation is planned do not.
  const double lie = tell_archive(*strategy, archive, target, campaign.search.strategy);
  strategy->freeze_model_quality();
  std::vector<jobs::Candidate> out;
  // One at a time, each proposal told a "constant liar" time before the next ask: a whole generation is
  // planned without measurements, and the lie pushes the model away from proposing near-copies of one point.
  for (int round = 0; round < 4 * count && static_cast<int>(out.size()) < count; ++round) {
    const std::vector<jobs::Genome> proposals = strategy->ask(1);
    if (proposals.empty()) break;
    for (const auto& genome : proposals) {
      strategy->tell(genome, lie);
      jobs::Candidate c;
      c.family = campaign.family;
      c.backend = campaign.backend;
      c.compile_flags = campaign.compile_flags;
      c.genome = genome;
      c.op = campaign.search.strategy;
      c.generation = generation;
      c.island = island;
      jobs::assign_id(c);
      if (seen.insert(c.id).second) out.push_back(std::move(c));
    }
  }
  return out;
}

ModelQuality island_model_quality(const CampaignConfig& campaign, const SearchSpace& space, const ArchiveView& archive,
                                  int island) {
  if (campaign.search.strategy != "surrogate") return {};
  const int generation = static_cast<int>(archive.generations().size());
  auto strategy = island_strategy(campaign, space, archive, generation, island);
  tell_archive(*strategy, archive, campaign.targets.at(static_cast<std::size_t>(island)), campaign.search.strategy);
  return strategy->model_quality();
}

}  // namespace kforge::scheduler
