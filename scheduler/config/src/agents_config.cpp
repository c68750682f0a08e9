// The agents section: external programs used as variation operators (docs/agents.md).
#include <filesystem>
#include <set>
#include <string>

#include "campaign_sections.hpp"

namespace kforge::scheduler::config_detail {

namespace {

// argv elements naming a file next to the campaign file become absolute: the agent runs in its own folder.
std::vector<std::string> resolve_command(std::vector<std::string> argv, const std::filesystem::path& campaign_file) {
  const auto base = std::filesystem::absolute(campaign_file).parent_path();
  for (auto& arg : argv) {
    if (arg.find('/') == std::string::npos || std::filesystem::path(arg).is_absolute()) continue;
    std::error_code ec;
    if (std::filesystem::exists(base / arg, ec)) arg = (base / arg).lexically_normal().string();
  }
  return argv;
}

}  // namespace

void read_agents(const MapReader& top, CampaignConfig& campaign) {
  if (!top.has("agents")) return;
  const std::string allowed = "a list of {name, command, weight, timeout_s}";
  const YAML::Node& list = top.value("agents");
  if (!list.IsSequence()) top.fail("agents", "expected a list, got " + describe_value(list), allowed);
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = "agents[" + std::to_string(i) + "]";
    MapReader agent(list[i], path, top.file(), {"name", "command", "weight", "timeout_s"},
                    location_of(list[i].Mark(), top.file()));
    AgentOperatorConfig a;
    a.where = agent.where();
    a.name = agent.require_string("name", "an identifier-like name: letters, digits, '.', '_', '-'");
    if (!is_safe_file_name(a.name)) agent.fail("name", "'" + a.name + "' is not a safe name", "[A-Za-z0-9._-]+");
    if (!names.insert(a.name).second) agent.fail("name", "a second agent named '" + a.name + "'", "distinct names");
    if (!agent.has("command")) agent.fail_missing("command", "the agent's argv, e.g. [python3, ../agents/my_agent.py]");
    const YAML::Node& command = agent.value("command");
    if (!command.IsSequence() || command.size() == 0) {
      agent.fail("command", "expected a non-empty list, got " + describe_value(command), "an argv list");
    }
    for (std::size_t k = 0; k < command.size(); ++k) {
      if (!command[k].IsScalar()) {
        agent.fail_at(command[k], agent.key_path("command") + "[" + std::to_string(k) + "]",
                      "expected a string, got " + describe_value(command[k]), "an argv list");
      }
      a.command.push_back(command[k].Scalar());
    }
    a.command = resolve_command(a.command, campaign.file);
    a.weight = agent.get_number("weight", a.weight, number_open(0, 1));
    NumberRule seconds = number_closed(0.0, 1e6);  // as evaluation's timeouts: the clocks' range
    seconds.min_open = true;
    seconds.allowed = "a number of seconds > 0 and <= 1e+06";
    a.timeout_s = agent.get_number("timeout_s", a.timeout_s, seconds);
    campaign.agents.push_back(a);
  }
}

}  // namespace kforge::scheduler::config_detail
