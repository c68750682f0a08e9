// Where the values of a campaign file are written (CampaignConfig::where), for checks that run after parsing.
#include <string>

#include "campaign_sections.hpp"

namespace kforge::scheduler {

SourceLocation CampaignConfig::location_of(const std::string& key) const {
  // "evaluation.problem.M" -> "evaluation.problem" -> "evaluation"; "campaign.targets[1]" -> "campaign.targets".
  for (std::string k = key; !k.empty();) {
    if (const auto it = where.find(k); it != where.end()) return it->second;
    const std::size_t cut = k.find_last_of(".[");
    if (cut == std::string::npos) break;
    k.resize(cut);
  }
  return {file.string(), 1, 1};
}

namespace config_detail {

void record_where(std::map<std::string, SourceLocation>& where, const MapReader& m, const std::string& key) {
  const std::string path = m.key_path(key);
  where[path] = m.where(key);
  if (!m.has(key)) return;
  const YAML::Node& value = m.value(key);
  if (value.IsSequence()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      where[path + "[" + std::to_string(i) + "]"] = location_of(value[i].Mark(), m.file());
  } else if (value.IsMap()) {
    for (const auto& entry : value)
      where[path + "." + entry.first.Scalar()] =
          location_of((entry.second.IsNull() ? entry.first : entry.second).Mark(), m.file());
  }
}

}  // namespace config_detail
}  // namespace kforge::scheduler
