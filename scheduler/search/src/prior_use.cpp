#include "kforge/scheduler/search/prior_use.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "kforge/jobs/statistics.hpp"

namespace kforge::scheduler {
namespace {

// genome text -> (time, rank 1.., count), a set ranked on its own; a configuration told twice keeps its first
// time; failures rank after every time.
struct RankedSet {
  std::map<std::string, std::pair<double, int>> by_genome;
  std::vector<std::string> order;  // fastest first
};

RankedSet rank(const PriorObservations& set) {
  RankedSet out;
  std::vector<std::pair<double, std::string>> timed;
  for (const auto& [genome, ms] : set.measured) {
    const std::string text = genome.to_text();
    if (out.by_genome.emplace(text, std::make_pair(ms, 0)).second) timed.emplace_back(ms, text);
  }
  std::stable_sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < timed.size(); ++i) {
    out.by_genome[timed[i].second].second = static_cast<int>(i) + 1;
    out.order.push_back(timed[i].second);
  }
  return out;
}

}  // namespace

std::vector<PriorPick> best_of_priors(const std::vector<PriorObservations>& sets, const ValidityOracle& valid,
                                      int count) {
  std::vector<RankedSet> ranked;
  for (const auto& s : sets) ranked.push_back(rank(s));
  std::map<std::string, PriorPick> picks;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (const auto& [text, timed] : ranked[s].by_genome) {
      if (!std::isfinite(timed.first)) continue;
      auto [it, fresh] = picks.try_emplace(text);
      if (fresh) {
        it->second.genome = jobs::Genome::from_text(text);
        if (!valid(it->second.genome)) {
          picks.erase(it);
          continue;
        }
      }
      it->second.evidence.push_back(
          {sets[s].source, timed.first, timed.second, static_cast<int>(ranked[s].by_genome.size())});
    }
  }
  std::vector<PriorPick> out;
  for (auto& [text, pick] : picks) {
    double sum = 0.5 * static_cast<double>(sets.size() - pick.evidence.size());
    for (const auto& e : pick.evidence) sum += (e.rank - 0.5) / e.of;
    pick.score = sum / static_cast<double>(sets.size());
    out.push_back(std::move(pick));
  }
  std::stable_sort(out.begin(), out.end(), [](const PriorPick& a, const PriorPick& b) { return a.score < b.score; });
  if (static_cast<int>(out.size()) > count) out.resize(static_cast<std::size_t>(std::max(count, 0)));
  return out;
}

PriorWorth prior_worth(const PriorObservations& set, const std::vector<std::pair<jobs::Genome, double>>& here) {
  PriorWorth w;
  w.source = set.source;
  const RankedSet prior = rank(set);
  const RankedSet mine = rank(PriorObservations{"", here});
  w.measured_here = static_cast<int>(mine.by_genome.size());
  std::vector<double> theirs, ours;
  for (const auto& [text, timed] : mine.by_genome) {
    const auto it = prior.by_genome.find(text);
    if (it == prior.by_genome.end()) continue;
    theirs.push_back(it->second.first);
    ours.push_back(timed.first);
  }
  w.shared = static_cast<int>(ours.size());
  w.rank_correlation = jobs::rank_correlation(theirs, ours);
  if (!prior.order.empty()) {
    const auto it = mine.by_genome.find(prior.order.front());
    if (it != mine.by_genome.end()) w.best_rank_here = it->second.second;
  }
  return w;
}

std::string describe(const PriorWorth& w) {
  char buf[256];
  std::string out = "prior " + w.source + ": ";
  if (std::isfinite(w.rank_correlation)) {
    std::snprintf(buf, sizeof buf, "rank correlation %.2f with this campaign on %d shared configurations",
                  w.rank_correlation, w.shared);
  } else {
    std::snprintf(buf, sizeof buf, "%d shared configurations (too few to correlate)", w.shared);
  }
  out += buf;
  if (w.best_rank_here > 0) {
    std::snprintf(buf, sizeof buf, "; its best ranked %d of %d here", w.best_rank_here, w.measured_here);
  } else {
    std::snprintf(buf, sizeof buf, "; its best was not measured here");
  }
  return out + buf;
}

}  // namespace kforge::scheduler
