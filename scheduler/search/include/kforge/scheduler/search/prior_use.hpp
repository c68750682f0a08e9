#pragma once
// What a campaign does with prior sets (search.prior, the site catalog): the best configurations they agree on
// (generation 0's seeds, kforge suggest), and after the campaign, what each set was worth.
#include <string>
#include <vector>

#include "kforge/jobs/genome.hpp"
#include "kforge/scheduler/search/strategy.hpp"

namespace kforge::scheduler {

// One set's word on a configuration: its time there and its rank (1 = fastest) of `of` measured.
struct PriorEvidence {
  std::string source;
  double time_ms = 0.0;
  int rank = 0;
  int of = 0;
};

struct PriorPick {
  jobs::Genome genome;
  double score = 0.0;  // mean rank fraction over every set, 0 = fastest everywhere; a set without it counts 0.5
  std::vector<PriorEvidence> evidence;
};

// The `count` valid configurations the sets rank best together (failures never). Only their ranks are used:
// two GPUs' times are not comparable.
std::vector<PriorPick> best_of_priors(const std::vector<PriorObservations>& sets, const ValidityOracle& valid,
                                      int count);

// After the fact: how one set ranked the configurations this campaign measured, as their rank correlation, and
// where the set's own best configuration landed here.
struct PriorWorth {
  std::string source;
  int shared = 0;                 // configurations both measured (failures included)
  double rank_correlation = 0.0;  // NaN below 3 shared
  int best_rank_here = 0;         // rank here (1 = fastest) of the set's best configuration; 0 if not measured
  int measured_here = 0;
};
PriorWorth prior_worth(const PriorObservations& set, const std::vector<std::pair<jobs::Genome, double>>& here);
std::string describe(const PriorWorth& w);  // one console line

}  // namespace kforge::scheduler
