#pragma once
// The sections of a campaign file, each read and validated on its own (private to src/config).
#include "kforge/scheduler/config.hpp"
#include "yaml_reader.hpp"

namespace kforge::scheduler::config_detail {

// top is the document's top-level mapping; each reader takes its section from it.
SpaceSpec read_space(const MapReader& top);
SearchSpec read_search(const MapReader& top);
// Fills the evaluation settings and candidates_per_rank of campaign.
void read_evaluation(const MapReader& top, CampaignConfig& campaign);
void read_agents(const MapReader& top, CampaignConfig& campaign);

}  // namespace kforge::scheduler::config_detail
