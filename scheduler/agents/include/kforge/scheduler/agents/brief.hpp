#pragma once
// The agent operator's input (ARCHITECTURE.md, "Agent operator protocol"; docs/agents.md): the parents with
// their sources, records and evidence, the campaign's lessons, the search space and how many children to make.
// Written as YAML (sources as literal blocks, for people) and as a JSON twin (for agents with only a JSON
// parser at hand, e.g. python3 without PyYAML). Both carry the same content.
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

inline constexpr int kAgentBriefVersion = 1;

struct BriefParent {
  // id, op, genome and source are written; source should be the rendered source when the candidate has none
  // of its own (Backend::render), so that an agent can edit it.
  jobs::Candidate candidate;
  // status, time_median_ms, speedup and evidence are written.
  jobs::EvalRecord record;
};

struct AgentBrief {
  std::string campaign;
  std::string family;
  std::string backend;
  std::string target;  // the island's hardware target
  int generation = 0;  // the generation the children will belong to
  int island = 0;
  int children_wanted = 0;
  std::vector<BriefParent> parents;  // best first
  std::vector<std::string> lessons;  // what the campaign learnt so far, one sentence each
  SpaceSpec space;                   // parameter names with their values, and the constraints
};

// The texts of the two files.
std::string brief_to_yaml(const AgentBrief& brief);
std::string brief_to_json(const AgentBrief& brief);

// brief.yaml -> brief.json (same folder and stem). Agents find the twin from the --brief path this way.
std::filesystem::path brief_json_twin(const std::filesystem::path& yaml_path);

// Writes `yaml_path` and its JSON twin (each atomically). Throws std::invalid_argument when yaml_path ends in
// ".json" (the twin would overwrite it) and std::runtime_error naming the file when writing fails.
void write_brief(const std::filesystem::path& yaml_path, const AgentBrief& brief);

// Reads the YAML form back (tools, C++ agents, tests). Genome values keep their types: quoted scalars are
// strings, plain scalars integers or else doubles. Throws std::runtime_error naming the key that is wrong.
AgentBrief parse_brief(const std::string& yaml_text);

}  // namespace kforge::scheduler
