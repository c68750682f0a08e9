#pragma once
// The sections of a campaign file, each read and validated on its own (private to src/config).
#include "kforge/scheduler/config/config.hpp"
#include "yaml_reader.hpp"

namespace kforge::scheduler::config_detail {

// Records where m's key is written under its dotted path in `where`, and each element of a list (key[i]) or
// mapping (key.NAME) it holds.
void record_where(std::map<std::string, SourceLocation>& where, const MapReader& m, const std::string& key);

// top is the document's top-level mapping; each reader takes its section from it. read_space records where
// each parameter's values are written.
SpaceSpec read_space(const MapReader& top, std::map<std::string, SourceLocation>& where);
SearchSpec read_search(const MapReader& top);
// search.prior (search_prior_config.cpp): earlier campaign folders and Kernel Tuner caches, made absolute.
void read_search_prior(const MapReader& top, CampaignConfig& campaign);
// Fills the evaluation settings and candidates_per_rank of campaign.
void read_evaluation(const MapReader& top, CampaignConfig& campaign);
void read_agents(const MapReader& top, CampaignConfig& campaign);
// model, workload and engine (engine_config.cpp): required for campaign.family engine, refused otherwise.
void read_engine_sections(const MapReader& top, CampaignConfig& campaign);
// search.initial (search_initial_config.cpp): whole genomes evaluated first, each value one the space lists.
void read_search_initial(const MapReader& top, CampaignConfig& campaign);
// A parameter value as written: YAML ints -> int64, floats -> double, anything else (and every quoted scalar)
// -> string; `allowed` is the error's allowed text. same_value: 1 and 1.0 are the same setting.
jobs::ParamValue typed_value(const MapReader& params, const YAML::Node& item, const std::string& key,
                             const char* allowed);
bool same_value(const jobs::ParamValue& a, const jobs::ParamValue& b);
// (population + offspring) x islands within what the scheduler holds in memory; fails at search.offspring.
void check_generation_size(const MapReader& top, const CampaignConfig& config);

}  // namespace kforge::scheduler::config_detail
