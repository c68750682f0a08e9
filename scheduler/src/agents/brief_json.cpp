// The brief's JSON twin: the same content as the YAML form, for agents that only have a JSON parser
// (python3's standard library). Written by hand: it is a handful of value kinds.
#include <cmath>
#include <cstdio>
#include <string>
#include <variant>

#include "kforge/scheduler/agents/brief.hpp"

namespace kforge::scheduler {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
          out += escape;
        } else {
          out += ch;  // bytes >= 0x80 pass through: sources and evidence are UTF-8
        }
    }
  }
  return out + "\"";
}

// JSON has no NaN or infinity: an unmeasured figure is null.
std::string number(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string value_text(const jobs::ParamValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return number(*d);
  return quoted(std::get<std::string>(value));
}

std::string genome_text(const jobs::Genome& genome) {
  std::string out = "{";
  for (const auto& [name, value] : genome.params)
    out += (out.size() > 1 ? ", " : "") + quoted(name) + ": " + value_text(value);
  return out + "}";
}

std::string space_text(const SpaceSpec& space) {
  std::string out = "{\"parameters\": {";
  bool first = true;
  for (const auto& parameter : space.parameters) {
    out += (first ? "" : ", ") + quoted(parameter.name) + ": [";
    for (std::size_t i = 0; i < parameter.values.size(); ++i)
      out += (i ? ", " : "") + value_text(parameter.values[i]);
    out += "]";
    first = false;
  }
  out += "}, \"constraints\": [";
  for (std::size_t i = 0; i < space.constraints.size(); ++i)
    out += (i ? ", " : "") + quoted(space.constraints[i].expression);
  return out + "]}";
}

std::string parent_text(const BriefParent& parent) {
  const auto& c = parent.candidate;
  const auto& r = parent.record;
  return "    {\"id\": " + quoted(c.id) + ", \"op\": " + quoted(c.op) +
         ", \"generation\": " + std::to_string(c.generation) + ",\n     \"genome\": " + genome_text(c.genome) +
         ",\n     \"record\": {\"status\": " + quoted(std::string(jobs::to_string(r.status))) +
         ", \"time_median_ms\": " + number(r.time_median_ms) + ", \"speedup\": " + number(r.speedup) +
         ", \"evidence\": " + quoted(r.evidence) + (r.ptx.empty() ? "" : ", \"ptx\": " + quoted(r.ptx)) +
         "},\n     \"source\": " + quoted(c.source) + "}";
}

}  // namespace

std::string brief_to_json(const AgentBrief& brief) {
  std::string out = "{\"kforge_agent_brief\": " + std::to_string(kAgentBriefVersion) +
                    ",\n \"campaign\": " + quoted(brief.campaign) + ", \"family\": " + quoted(brief.family) +
                    ", \"backend\": " + quoted(brief.backend) + ", \"target\": " + quoted(brief.target) +
                    ",\n \"generation\": " + std::to_string(brief.generation) +
                    ", \"island\": " + std::to_string(brief.island) +
                    ", \"children_wanted\": " + std::to_string(brief.children_wanted) + ",\n \"lessons\": [";
  for (std::size_t i = 0; i < brief.lessons.size(); ++i) out += (i ? ", " : "") + quoted(brief.lessons[i]);
  out += "],\n \"space\": " + space_text(brief.space) + ",\n \"parents\": [\n";
  for (std::size_t i = 0; i < brief.parents.size(); ++i)
    out += (i ? ",\n" : "") + parent_text(brief.parents[i]);
  return out + "\n ]}\n";
}

}  // namespace kforge::scheduler
