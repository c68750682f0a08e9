// Reading an agent's children file: every entry is checked on its own, nothing here throws on bad content.
#include "kforge/scheduler/agents/children.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "kforge/jobs/source_kind.hpp"
#include "kforge/jobs/utf8.hpp"
#include "yaml_values.hpp"

namespace kforge::scheduler {
namespace {

std::string listed_values(const ParameterSpec& parameter) {
  std::string out;
  for (const auto& value : parameter.values) out += (out.empty() ? "" : ", ") + jobs::to_text(value);
  return out;
}

const ParameterSpec* find_parameter(const SearchSpace& space, const std::string& name) {
  for (const auto& parameter : space.parameters())
    if (parameter.name == name) return &parameter;
  return nullptr;
}

// The genome of one entry, or the reason it is not acceptable.
std::optional<jobs::Genome> genome_of(const YAML::Node& node, const SearchSpace& space, std::string& reason) {
  if (!node.IsMap()) {
    reason = "genome: must be a map of parameter: value";
    return std::nullopt;
  }
  jobs::Genome genome;
  for (const auto& entry : node) {
    const std::string name = agent_yaml::scalar_text(entry.first);
    const ParameterSpec* parameter = find_parameter(space, name);
    if (parameter == nullptr) {
      reason = "genome: unknown parameter '" + name + "'";
      return std::nullopt;
    }
    const auto listed = std::find_if(parameter->values.begin(), parameter->values.end(),
                                     [&](const jobs::ParamValue& v) { return agent_yaml::denotes(entry.second, v); });
    if (listed == parameter->values.end()) {
      reason = "genome: " + name + "=" + agent_yaml::scalar_text(entry.second) + " is not one of the listed values (" +
               listed_values(*parameter) + ")";
      return std::nullopt;
    }
    genome.params[name] = *listed;
  }
  std::string missing;
  for (const auto& parameter : space.parameters())
    if (!genome.has(parameter.name)) missing += (missing.empty() ? "" : ", ") + parameter.name;
  if (!missing.empty()) {
    reason = "genome: missing parameter(s) " + missing;
    return std::nullopt;
  }
  if (!space.contains(genome)) {
    reason = "genome: " + genome.to_text() + " violates a constraint of the space";
    return std::nullopt;
  }
  return genome;
}

bool read_source(const YAML::Node& node, AgentChild& child, std::string& reason) {
  if (!node.IsScalar() || node.Scalar().empty()) {
    reason = "source: must be a non-empty string";
    return false;
  }
  if (node.Scalar().size() > kMaxChildSourceBytes) {
    reason = "source: " + std::to_string(node.Scalar().size()) + " bytes, more than the " +
             std::to_string(kMaxChildSourceBytes) + " allowed";
    return false;
  }
  // Manifests (YAML) and shards (HDF5 UTF-8 strings) carry the source: other bytes would not arrive unchanged.
  if (!jobs::is_valid_utf8(node.Scalar())) {
    reason = "source: not valid UTF-8 text";
    return false;
  }
  child.source = node.Scalar();
  return true;
}

bool read_parents(const YAML::Node& node, const ChildrenRules& rules, AgentChild& child, std::string& reason) {
  if (!node.IsSequence()) {
    reason = "parents: must be a list of parent ids from the brief";
    return false;
  }
  for (const auto& id_node : node) {
    const std::string id = agent_yaml::scalar_text(id_node);
    if (std::find(rules.parent_ids.begin(), rules.parent_ids.end(), id) == rules.parent_ids.end()) {
      reason = "parents: '" + id + "' is not a parent in the brief";
      return false;
    }
    child.parents.push_back(id);
  }
  return true;
}

// `source_kind:` declares the language of the child's source: ptx (cuda backend only; its first statement must
// be `.version`), or cuda / cpp (not PTX). A wrong declaration is the agent's error, told to it here rather than
// as a compile error of the wrong compiler.
bool source_kind_agrees(const YAML::Node& kind, const AgentChild& child, const ChildrenRules& rules,
                        std::string& reason) {
  const std::string declared = kind.IsScalar() ? kind.Scalar() : std::string();
  if (declared != "ptx" && declared != "cuda" && declared != "cpp") {
    reason = "source_kind: must be ptx, cuda or cpp";
    return false;
  }
  if (child.source.empty()) {
    reason = "source_kind: " + declared + " without a source";
    return false;
  }
  if (declared == "ptx" && !rules.backend.empty() && rules.backend != "cuda") {
    reason = "source_kind: ptx needs the cuda backend (this campaign's is " + rules.backend + ")";
    return false;
  }
  if ((declared == "ptx") != jobs::is_ptx_source(child.source)) {
    reason = declared == "ptx"
                 ? "source_kind: ptx, but the source's first statement is not a PTX .version directive"
                 : "source_kind: " + declared + ", but the source is PTX (its first statement is .version)";
    return false;
  }
  return true;
}

// One entry: the child, or the reason it is rejected (reason set, nullopt returned).
std::optional<AgentChild> child_of(const YAML::Node& entry, const ChildrenRules& rules, std::string& reason) {
  if (!entry.IsMap()) {
    reason = "not a map with genome / source / rationale";
    return std::nullopt;
  }
  AgentChild child;
  const YAML::Node genome = entry["genome"], source = entry["source"], parents = entry["parents"];
  if (!genome && !source) {
    reason = "has neither genome nor source";
    return std::nullopt;
  }
  if (genome) {
    auto parsed = genome_of(genome, *rules.space, reason);
    if (!parsed) return std::nullopt;
    child.genome = std::move(*parsed);
  }
  if (source && !read_source(source, child, reason)) return std::nullopt;
  if (const YAML::Node kind = entry["source_kind"]; kind && !source_kind_agrees(kind, child, rules, reason))
    return std::nullopt;
  if (parents && !read_parents(parents, rules, child, reason)) return std::nullopt;
  if (const YAML::Node rationale = entry["rationale"]; rationale && rationale.IsScalar()) {
    if (!jobs::is_valid_utf8(rationale.Scalar())) {
      reason = "rationale: not valid UTF-8 text";
      return std::nullopt;
    }
    child.rationale = rationale.Scalar();
  }
  return child;
}

// The list of entries: `children:` of a map, or the document itself when it is a list.
std::optional<YAML::Node> entries_of(const YAML::Node& root, std::string& failure) {
  if (root.IsSequence()) return root;
  if (root.IsMap() && root["children"] && root["children"].IsSequence()) return root["children"];
  if (root.IsMap() && root["children"] && root["children"].IsNull()) return YAML::Node(YAML::NodeType::Sequence);
  failure = root.IsNull() ? "the children file is empty"
                          : "the children file has no 'children:' list (docs/agents.md, \"Children file\")";
  return std::nullopt;
}

}  // namespace

ChildrenFile parse_children(const std::string& text, const ChildrenRules& rules) {
  ChildrenFile out;
  if (rules.space == nullptr) {
    out.failure = "parse_children: no search space given (ChildrenRules::space)";
    return out;
  }
  try {
    const YAML::Node root = YAML::Load(text);
    const auto entries = entries_of(root, out.failure);
    if (!entries) return out;
    int index = 0;
    for (const auto& entry : *entries) {
      std::string reason;
      const std::string where = "children[" + std::to_string(index) + "]: ";
      if (rules.max_children > 0 && index >= rules.max_children)
        out.rejected.push_back(
            {index, where + "beyond the " + std::to_string(rules.max_children) + " children asked for"});
      else if (auto child = child_of(entry, rules, reason)) {
        child->index = index;
        out.children.push_back(std::move(*child));
      } else {
        out.rejected.push_back({index, where + reason});
      }
      ++index;
    }
  } catch (const YAML::Exception& e) {
    out = ChildrenFile{};
    out.failure = "the children file is not YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")";
  }
  return out;
}

ChildrenFile read_children(const std::filesystem::path& file, const ChildrenRules& rules) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    ChildrenFile out;
    out.failure = "the children file " + file.string() + " was not written";
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_children(text.str(), rules);
}

ChildrenRules children_rules(const AgentBrief& brief, const SearchSpace& space) {
  ChildrenRules rules;
  rules.space = &space;
  rules.max_children = brief.children_wanted;
  rules.backend = brief.backend;
  for (const auto& parent : brief.parents) rules.parent_ids.push_back(parent.candidate.id);
  return rules;
}

std::vector<jobs::Candidate> agent_candidates(const std::vector<AgentChild>& children, const AgentBrief& brief,
                                              const std::string& agent_name, const CandidateTemplate& tmpl) {
  std::vector<std::string> all_parents;
  for (const auto& parent : brief.parents) all_parents.push_back(parent.candidate.id);
  std::vector<jobs::Candidate> out;
  std::set<std::string> ids;
  for (const auto& child : children) {
    jobs::Candidate c;
    c.family = tmpl.family;
    c.backend = tmpl.backend;
    c.compile_flags = tmpl.compile_flags;
    c.parents = child.parents.empty() ? all_parents : child.parents;
    c.genome = child.genome;
    if (c.genome.params.empty() && !c.parents.empty())
      for (const auto& parent : brief.parents)
        if (parent.candidate.id == c.parents.front()) c.genome = parent.candidate.genome;
    c.source = child.source;
    c.op = "agent:" + agent_name;
    c.generation = brief.generation;
    c.island = brief.island;
    if (ids.insert(jobs::assign_id(c)).second) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kforge::scheduler
