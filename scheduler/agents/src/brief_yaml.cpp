// The brief's YAML form: written with the yaml-cpp emitter, read back with yaml-cpp (docs/agents.md).
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>
#include <variant>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/agents/brief.hpp"

namespace kforge::scheduler {
namespace {

// A literal block (|) reads back byte-exact only for text that ends in exactly one newline, does not start
// with blanks (they would set the block's indentation) and holds no control characters. Anything else is
// written double-quoted, which is exact for every string.
bool literal_block_is_exact(const std::string& text) {
  if (text.size() < 2 || text.back() != '\n' || text[text.size() - 2] == '\n') return false;
  if (text.front() == ' ' || text.front() == '\t' || text.front() == '\n') return false;
  for (unsigned char ch : text)
    if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch == 0x7f || ch >= 0x80) return false;
  return true;
}

void emit_text(YAML::Emitter& out, const std::string& text) {
  if (literal_block_is_exact(text))
    out << YAML::Literal << text;
  else
    out << YAML::DoubleQuoted << text;
}

// Integers plain, doubles in jobs::to_text form (always with '.', 'e', inf or nan, so they never read back as
// integers), strings double-quoted (so "1" stays a string).
void emit_value(YAML::Emitter& out, const jobs::ParamValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value))
    out << *i;
  else if (std::holds_alternative<double>(value))
    out << jobs::to_text(value);
  else
    out << YAML::DoubleQuoted << std::get<std::string>(value);
}

void emit_genome(YAML::Emitter& out, const jobs::Genome& genome) {
  out << YAML::Flow << YAML::BeginMap;
  for (const auto& [name, value] : genome.params) {
    out << YAML::Key << name << YAML::Value;
    emit_value(out, value);
  }
  out << YAML::EndMap;
}

void emit_space(YAML::Emitter& out, const SpaceSpec& space) {
  out << YAML::Key << "space" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "parameters" << YAML::Value << YAML::BeginMap;
  for (const auto& parameter : space.parameters) {
    out << YAML::Key << parameter.name << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& value : parameter.values) emit_value(out, value);
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  out << YAML::Key << "constraints" << YAML::Value << YAML::BeginSeq;
  for (const auto& constraint : space.constraints) out << YAML::DoubleQuoted << constraint.expression;
  out << YAML::EndSeq << YAML::EndMap;
}

void emit_parent(YAML::Emitter& out, const BriefParent& parent) {
  const auto& c = parent.candidate;
  const auto& r = parent.record;
  out << YAML::BeginMap;
  out << YAML::Key << "id" << YAML::Value << c.id;
  out << YAML::Key << "op" << YAML::Value << c.op;
  out << YAML::Key << "generation" << YAML::Value << c.generation;
  out << YAML::Key << "genome" << YAML::Value;
  emit_genome(out, c.genome);
  out << YAML::Key << "record" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "status" << YAML::Value << std::string(jobs::to_string(r.status));
  out << YAML::Key << "time_median_ms" << YAML::Value << r.time_median_ms;
  out << YAML::Key << "speedup" << YAML::Value << r.speedup;
  out << YAML::Key << "evidence" << YAML::Value;
  emit_text(out, r.evidence);
  if (!r.ptx.empty()) {  // cuda: the PTX the parent was assembled from, for agents that edit PTX
    out << YAML::Key << "ptx" << YAML::Value;
    emit_text(out, r.ptx);
  }
  out << YAML::EndMap;
  out << YAML::Key << "source" << YAML::Value;
  emit_text(out, c.source);
  out << YAML::EndMap;
}

}  // namespace

std::string brief_to_yaml(const AgentBrief& brief) {
  YAML::Emitter out;
  out << YAML::Comment("kforge agent brief: write the children file named by --children (docs/agents.md)");
  out << YAML::BeginMap;
  out << YAML::Key << "kforge_agent_brief" << YAML::Value << kAgentBriefVersion;
  out << YAML::Key << "campaign" << YAML::Value << brief.campaign;
  out << YAML::Key << "family" << YAML::Value << brief.family;
  out << YAML::Key << "backend" << YAML::Value << brief.backend;
  out << YAML::Key << "target" << YAML::Value << brief.target;
  out << YAML::Key << "generation" << YAML::Value << brief.generation;
  out << YAML::Key << "island" << YAML::Value << brief.island;
  out << YAML::Key << "children_wanted" << YAML::Value << brief.children_wanted;
  out << YAML::Key << "lessons" << YAML::Value << YAML::BeginSeq;
  for (const auto& lesson : brief.lessons) emit_text(out, lesson);
  out << YAML::EndSeq;
  emit_space(out, brief.space);
  out << YAML::Key << "parents" << YAML::Value << YAML::BeginSeq;
  for (const auto& parent : brief.parents) emit_parent(out, parent);
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) throw std::runtime_error("agent brief: YAML emitter failed: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

void write_brief(const std::filesystem::path& yaml_path, const AgentBrief& brief) {
  if (yaml_path.extension() == ".json")
    throw std::invalid_argument("write_brief: " + yaml_path.string() +
                                " ends in .json; its JSON twin would overwrite it (use brief.yaml)");
  jobs::write_text_file_atomically(yaml_path, brief_to_yaml(brief));
  jobs::write_text_file_atomically(brief_json_twin(yaml_path), brief_to_json(brief));
}

std::filesystem::path brief_json_twin(const std::filesystem::path& yaml_path) {
  auto twin = yaml_path;
  return twin.replace_extension(".json");
}

}  // namespace kforge::scheduler
