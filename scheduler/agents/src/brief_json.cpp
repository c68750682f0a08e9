// The brief's JSON twin: the same content as the YAML form, for agents that only have a JSON parser
// (python3's standard library). Written by hand: it is a handful of value kinds.
#include <string>
#include <variant>

#include "kforge/jobs/json_text.hpp"
#include "kforge/scheduler/agents/brief.hpp"

namespace kforge::scheduler {
namespace {

// Every digit of a double, so that an agent reads back exactly the value kforge holds.
std::string number(double value) { return jobs::json_number(value, 17); }

std::string value_text(const jobs::ParamValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return number(*d);
  return jobs::json_string(std::get<std::string>(value));
}

std::string genome_text(const jobs::Genome& genome) {
  std::string out = "{";
  for (const auto& [name, value] : genome.params)
    out += (out.size() > 1 ? ", " : "") + jobs::json_string(name) + ": " + value_text(value);
  return out + "}";
}

std::string space_text(const SpaceSpec& space) {
  std::string out = "{\"parameters\": {";
  bool first = true;
  for (const auto& parameter : space.parameters) {
    out += (first ? "" : ", ") + jobs::json_string(parameter.name) + ": [";
    for (std::size_t i = 0; i < parameter.values.size(); ++i) out += (i ? ", " : "") + value_text(parameter.values[i]);
    out += "]";
    first = false;
  }
  out += "}, \"constraints\": [";
  for (std::size_t i = 0; i < space.constraints.size(); ++i)
    out += (i ? ", " : "") + jobs::json_string(space.constraints[i].expression);
  return out + "]}";
}

std::string parent_text(const BriefParent& parent) {
  const auto& c = parent.candidate;
  const auto& r = parent.record;
  return "    {\"id\": " + jobs::json_string(c.id) + ", \"op\": " + jobs::json_string(c.op) +
         ", \"generation\": " + std::to_string(c.generation) + ",\n     \"genome\": " + genome_text(c.genome) +
         ",\n     \"record\": {\"status\": " + jobs::json_string(std::string(jobs::to_string(r.status))) +
         ", \"time_median_ms\": " + number(r.time_median_ms) + ", \"speedup\": " + number(r.speedup) +
         ", \"evidence\": " + jobs::json_string(r.evidence) +
         (r.ptx.empty() ? "" : ", \"ptx\": " + jobs::json_string(r.ptx)) +
         "},\n     \"source\": " + jobs::json_string(c.source) + "}";
}

}  // namespace

std::string brief_to_json(const AgentBrief& brief) {
  std::string out =
      "{\"kforge_agent_brief\": " + std::to_string(kAgentBriefVersion) +
      ",\n \"campaign\": " + jobs::json_string(brief.campaign) + ", \"family\": " + jobs::json_string(brief.family) +
      ", \"backend\": " + jobs::json_string(brief.backend) + ", \"target\": " + jobs::json_string(brief.target) +
      ",\n \"generation\": " + std::to_string(brief.generation) + ", \"island\": " + std::to_string(brief.island) +
      ", \"children_wanted\": " + std::to_string(brief.children_wanted) + ",\n \"lessons\": [";
  for (std::size_t i = 0; i < brief.lessons.size(); ++i) out += (i ? ", " : "") + jobs::json_string(brief.lessons[i]);
  out += "],\n \"space\": " + space_text(brief.space) + ",\n \"parents\": [\n";
  for (std::size_t i = 0; i < brief.parents.size(); ++i) out += (i ? ",\n" : "") + parent_text(brief.parents[i]);
  return out + "\n ]}\n";
}

}  // namespace kforge::scheduler
