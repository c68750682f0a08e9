#pragma once
// One generation as work: breed each island's candidates and split them into task manifests.
#include <cstdint>
#include <vector>

#include "kforge/jobs/manifest.hpp"
#include "kforge/scheduler/archive_view.hpp"
#include "kforge/scheduler/config.hpp"
#include "kforge/scheduler/search_space.hpp"

namespace kforge::scheduler {

// Deterministic in (config, archive, generation): a driver killed before the manifests were complete plans
// exactly the same work again.
std::vector<jobs::TaskManifest> plan_generation(const CampaignConfig& campaign, const SiteConfig& site,
                                                const SearchSpace& space, const ArchiveView& archive, int generation);

// Splits one island's candidates into tasks of ranks_per_task x candidates_per_rank; task numbers start at
// first_task. Shard paths are relative to the manifest ("../shards/TTTT.h5").
std::vector<jobs::TaskManifest> split_into_tasks(const CampaignConfig& campaign, const SiteConfig& site,
                                                 int generation, int island,
                                                 const std::vector<jobs::Candidate>& candidates, int first_task);

// A 64-bit seed mixed from the campaign seed and small integers (splitmix64), so islands and generations
// draw independent streams.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b);

}  // namespace kforge::scheduler
