// Reading a brief back from its YAML form (tools, C++ agents and the round-trip tests).
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>

#include "kforge/scheduler/agents/brief.hpp"
#include "yaml_values.hpp"

namespace kforge::scheduler {
namespace {

YAML::Node required(const YAML::Node& map, const std::string& key, const std::string& where) {
  const YAML::Node node = map[key];
  if (!node) throw std::runtime_error("agent brief: " + where + ": missing key '" + key + "'");
  return node;
}

template <typename T>
T scalar(const YAML::Node& map, const std::string& key, const std::string& where) {
  try {
    return required(map, key, where).as<T>();
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("agent brief: " + where + ": key '" + key + "': " + e.msg);
  }
}

jobs::ParamValue value_of(const YAML::Node& node, const std::string& where) {
  auto value = agent_yaml::typed_value(node);
  if (!value) throw std::runtime_error("agent brief: " + where + ": expected a scalar value");
  return *value;
}

jobs::Genome genome_of(const YAML::Node& node, const std::string& where) {
  if (!node.IsMap()) throw std::runtime_error("agent brief: " + where + ": genome must be a map");
  jobs::Genome genome;
  for (const auto& entry : node) {
    const auto name = entry.first.as<std::string>();
    genome.params[name] = value_of(entry.second, where + ".genome." + name);
  }
  return genome;
}

SpaceSpec space_of(const YAML::Node& node) {
  SpaceSpec space;
  for (const auto& entry : required(node, "parameters", "space")) {
    ParameterSpec parameter;
    parameter.name = entry.first.as<std::string>();
    for (const auto& value : entry.second) parameter.values.push_back(value_of(value, "space." + parameter.name));
    space.parameters.push_back(std::move(parameter));
  }
  for (const auto& constraint : required(node, "constraints", "space"))
    space.constraints.push_back({constraint.as<std::string>(), {}});
  return space;
}

BriefParent parent_of(const YAML::Node& node, const std::string& where) {
  BriefParent parent;
  auto& c = parent.candidate;
  c.id = scalar<std::string>(node, "id", where);
  c.op = scalar<std::string>(node, "op", where);
  c.generation = scalar<int>(node, "generation", where);
  c.genome = genome_of(required(node, "genome", where), where);
  c.source = scalar<std::string>(node, "source", where);
  const YAML::Node record = required(node, "record", where);
  const auto status_text = scalar<std::string>(record, "status", where + ".record");
  const auto status = jobs::status_from_string(status_text);
  if (!status) throw std::runtime_error("agent brief: " + where + ".record: unknown status '" + status_text + "'");
  auto& r = parent.record;
  r.candidate_id = c.id;
  r.status = *status;
  r.time_median_ms = scalar<double>(record, "time_median_ms", where + ".record");
  r.speedup = scalar<double>(record, "speedup", where + ".record");
  r.evidence = scalar<std::string>(record, "evidence", where + ".record");
  if (record["ptx"]) r.ptx = scalar<std::string>(record, "ptx", where + ".record");
  return parent;
}

AgentBrief brief_of(const YAML::Node& root) {
  if (!root.IsMap()) throw std::runtime_error("agent brief: the document must be a map");
  const int version = scalar<int>(root, "kforge_agent_brief", "document");
  if (version != kAgentBriefVersion)
    throw std::runtime_error("agent brief: kforge_agent_brief is " + std::to_string(version) + ", this reader knows " +
                             std::to_string(kAgentBriefVersion));
  AgentBrief brief;
  brief.campaign = scalar<std::string>(root, "campaign", "document");
  brief.family = scalar<std::string>(root, "family", "document");
  brief.backend = scalar<std::string>(root, "backend", "document");
  brief.target = scalar<std::string>(root, "target", "document");
  brief.generation = scalar<int>(root, "generation", "document");
  brief.island = scalar<int>(root, "island", "document");
  brief.children_wanted = scalar<int>(root, "children_wanted", "document");
  for (const auto& lesson : required(root, "lessons", "document")) brief.lessons.push_back(lesson.as<std::string>());
  brief.space = space_of(required(root, "space", "document"));
  int index = 0;
  for (const auto& parent : required(root, "parents", "document"))
    brief.parents.push_back(parent_of(parent, "parents[" + std::to_string(index++) + "]"));
  return brief;
}

}  // namespace

AgentBrief parse_brief(const std::string& yaml_text) {
  try {
    return brief_of(YAML::Load(yaml_text));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("agent brief: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")");
  }
}

}  // namespace kforge::scheduler
