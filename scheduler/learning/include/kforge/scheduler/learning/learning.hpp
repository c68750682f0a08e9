#pragma once
// What the campaign learns from its own archive, generation by generation (docs/archive-schema.md, "Lessons"):
// operator credit and the adaptive shares it sets, the lessons agents read, and the growing validation set.
// Every function is deterministic in its inputs, so a resumed driver plans and stores exactly the same.
#include <map>
#include <string>
#include <vector>

#include "kforge/jobs/archive.hpp"
#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

// Credit of one variation operator (built-in or agent): how often its children beat their parents.
struct OperatorCredit {
  int children = 0;
  int ok = 0;
  int improved = 0;  // ok and faster than the best of its parents; without parents (immigrants): faster than the
                     // median survivor of the island population it was bred against
};

// Credit earned by the records of `g` (not yet in `archive`, or already: only earlier generations are read),
// for one island or, with island < 0, for all.
std::map<std::string, OperatorCredit> generation_credit(const ArchiveView& archive, const jobs::Generation& g,
                                                        int island = -1);

// Credit over every generation the archive holds, plus `latest` when given (the generation being assembled).
std::map<std::string, OperatorCredit> campaign_credit(const ArchiveView& archive,
                                                      const jobs::Generation* latest = nullptr);

// Shares of an island's next offspring per operator ("mutation", "crossover", "immigrant", "agent:<name>"; or
// the search.strategy's name instead of the three evolutionary operators), summing to 1. The configured rates and agent
// weights are the prior; with search.adaptive_operators, each share is the prior times the operator's recent success
// rate ((improved + 1) / (children + 2), counts halved per generation of age), renormalised, and never below
// search.min_operator_share for an enabled operator.
std::map<std::string, double> operator_shares(const CampaignConfig& campaign, const ArchiveView& archive, int island);

// The per-generation /operator_weights rows: the shares `g` was planned with (from `before`, the archive
// without g) and what each operator's children in g did.
std::vector<jobs::OperatorWeight> operator_weights(const CampaignConfig& campaign, const ArchiveView& before,
                                                   const jobs::Generation& g);

// Lessons over every record of `archive` plus `latest` (the generation being assembled).
jobs::Lessons derive_lessons(const ArchiveView& archive, const jobs::Generation& latest);

// The validation set after `records`: `set` plus the failed_case of every record that has one and is new.
// At most kMaxValidationCases are kept (the earliest), so the cost per candidate stays bounded.
inline constexpr std::size_t kMaxValidationCases = 32;
std::vector<jobs::ValidationCase> grow_validation(std::vector<jobs::ValidationCase> set,
                                                  const std::vector<jobs::EvalRecord>& records, int generation);

}  // namespace kforge::scheduler
