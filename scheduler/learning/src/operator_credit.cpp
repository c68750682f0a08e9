// Operator credit and the adaptive operator shares it sets (learning.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "kforge/jobs/statistics.hpp"
#include "kforge/scheduler/learning/learning.hpp"

namespace kforge::scheduler {
namespace {

constexpr double kAgeDecay = 0.5;  // a generation's credit counts half as much one generation later

double median_fitness(const std::vector<jobs::PopulationEntry>& population, int island) {
  std::vector<double> f;
  for (const auto& e : population)
    if (e.island == island && std::isfinite(e.fitness_ms)) f.push_back(e.fitness_ms);
  return f.empty() ? std::numeric_limits<double>::infinity() : jobs::upper_median(std::move(f));
}

// What a child had to beat: its best parent, or (no parents) the median survivor it was bred against.
double bar_for(const ArchiveView& archive, const jobs::EvalRecord& r, const jobs::Generation& g) {
  if (r.parents.empty()) {
    const auto& gens = archive.generations();
    const bool has_previous = g.generation >= 1 && static_cast<std::size_t>(g.generation) <= gens.size();
    // Generation 0 has nothing to beat: its random candidates are the start, not an improvement.
    return has_previous ? median_fitness(gens[static_cast<std::size_t>(g.generation - 1)].population, r.island)
                        : -std::numeric_limits<double>::infinity();
  }
  double best = std::numeric_limits<double>::infinity();
  for (const auto& p : r.parents)
    if (const jobs::EvalRecord* pr = archive.record(p, r.target)) best = std::min(best, jobs::fitness_ms(*pr));
  return best;
}

// The configured shares: agents take their weights (scaled down if they add up past 1), the built-in
// operators split the rest by their rates.
std::map<std::string, double> prior_shares(const CampaignConfig& campaign) {
  std::map<std::string, double> prior;
  double agents = 0.0;
  for (const auto& a : campaign.agents) agents += a.weight;
  const double agent_scale = agents > 1.0 ? 1.0 / agents : 1.0;
  for (const auto& a : campaign.agents) prior["agent:" + a.name] = a.weight * agent_scale;
  const double builtin = std::max(0.0, 1.0 - agents * agent_scale);
  const SearchSpec& s = campaign.search;
  if (s.strategy != "evolutionary") {  // a model-based strategy makes every built-in child
    prior[s.strategy] = builtin;
    return prior;
  }
  prior["mutation"] = builtin * s.mutation_rate;
  prior["crossover"] = builtin * s.crossover_rate;
  prior["immigrant"] = builtin * std::max(0.0, 1.0 - s.mutation_rate - s.crossover_rate);
  return prior;
}

std::map<std::string, double> normalised(std::map<std::string, double> shares) {
  double total = 0.0;
  for (const auto& [op, w] : shares) total += w;
  if (total > 0.0)
    for (auto& [op, w] : shares) w /= total;
  return shares;
}

// Raises every enabled share to at least `floor`, taking the difference from the shares above it.
std::map<std::string, double> with_floor(std::map<std::string, double> shares, double floor) {
  for (int pass = 0; pass < 8; ++pass) {
    double deficit = 0.0, above = 0.0;
    for (auto& [op, w] : shares) {
      if (w > 0.0 && w < floor) {
        deficit += floor - w;
        w = floor;
      } else if (w > floor) {
        above += w - floor;
      }
    }
    if (deficit <= 0.0 || above <= 0.0) break;
    for (auto& [op, w] : shares)
      if (w > floor) w -= deficit * (w - floor) / above;
  }
  return normalised(std::move(shares));
}

}  // namespace

std::map<std::string, OperatorCredit> generation_credit(const ArchiveView& archive, const jobs::Generation& g,
                                                        int island) {
  std::map<std::string, OperatorCredit> credit;
  for (const auto& r : g.records) {
    if (island >= 0 && r.island != island) continue;
    OperatorCredit& c = credit[r.op];
    ++c.children;
    const double f = jobs::fitness_ms(r);
    if (!std::isfinite(f)) continue;
    ++c.ok;
    if (f < bar_for(archive, r, g)) ++c.improved;
  }
  return credit;
}

std::map<std::string, OperatorCredit> campaign_credit(const ArchiveView& archive, const jobs::Generation* latest) {
  std::map<std::string, OperatorCredit> total;
  const auto add = [&](const jobs::Generation& g) {
    for (const auto& [op, c] : generation_credit(archive, g)) {
      OperatorCredit& t = total[op];
      t.children += c.children;
      t.ok += c.ok;
      t.improved += c.improved;
    }
  };
  for (const auto& g : archive.generations())
    if (!latest || g.generation != latest->generation) add(g);
  if (latest) add(*latest);
  return total;
}

std::map<std::string, double> operator_shares(const CampaignConfig& campaign, const ArchiveView& archive, int island) {
  const std::map<std::string, double> prior = normalised(prior_shares(campaign));
  if (!campaign.search.adaptive_operators) return prior;
  std::map<std::string, double> children, improved;
  for (const auto& g : archive.generations()) {
    const double age_weight = std::pow(
        kAgeDecay, static_cast<double>(archive.generations().size() - 1 - static_cast<std::size_t>(g.generation)));
    for (const auto& [op, c] : generation_credit(archive, g, island)) {
      children[op] += age_weight * c.children;
      improved[op] += age_weight * c.improved;
    }
  }
  std::map<std::string, double> shares;
  for (const auto& [op, p] : prior) shares[op] = p * (improved[op] + 1.0) / (children[op] + 2.0);
  return with_floor(normalised(std::move(shares)), campaign.search.min_operator_share);
}

std::vector<jobs::OperatorWeight> operator_weights(const CampaignConfig& campaign, const ArchiveView& before,
                                                   const jobs::Generation& g) {
  std::vector<jobs::OperatorWeight> rows;
  for (int island = 0; island < static_cast<int>(campaign.targets.size()); ++island) {
    const auto credit = generation_credit(before, g, island);
    std::map<std::string, double> shares;
    if (g.generation > 0) shares = operator_shares(campaign, before, island);  // generation 0 is all "init"
    std::set<std::string> ops;
    for (const auto& [op, w] : shares) ops.insert(op);
    for (const auto& [op, c] : credit) ops.insert(op);
    for (const auto& op : ops) {
      jobs::OperatorWeight w{island, op, shares.count(op) ? shares.at(op) : 0.0, 0, 0, 0};
      if (const auto it = credit.find(op); it != credit.end()) {
        w.children = it->second.children;
        w.ok = it->second.ok;
        w.improved = it->second.improved;
      }
      rows.push_back(std::move(w));
    }
  }
  return rows;
}

}  // namespace kforge::scheduler
