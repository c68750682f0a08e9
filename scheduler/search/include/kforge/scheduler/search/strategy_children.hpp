#pragma once
// Built-in offspring from a model-based SearchStrategy (search.strategy "surrogate" or "random") instead of the
// evolutionary operators: the strategy is told every evaluation of the island's target the archive holds, then
// asked for the island's children one at a time, each told the median measured time as a stand-in ("constant
// liar") before the next ask. The children's op is the strategy's name and they have no parents.
#include <set>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/search/search_space.hpp"
#include "kforge/scheduler/search/strategy.hpp"

namespace kforge::scheduler {

// Deterministic in (campaign, archive, generation, island). Ids in `seen` are never proposed; new ones are
// added. Fewer than `count` only when the space is spent.
std::vector<jobs::Candidate> strategy_children(const CampaignConfig& campaign, const SearchSpace& space,
                                               const ArchiveView& archive, int generation, int island, int count,
                                               std::set<std::string>& seen);

// How well the surrogate's model foresaw the island's children: each generation's surrogate children predicted
// from the generations before them, then compared with what they measured (SearchStrategy::model_quality). Empty
// for the other strategies.
ModelQuality island_model_quality(const CampaignConfig& campaign, const SearchSpace& space, const ArchiveView& archive,
                                  int island);

}  // namespace kforge::scheduler
