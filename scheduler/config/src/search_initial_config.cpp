// search.initial: whole genomes the user already knows, evaluated in generation 0 before anything is drawn.
// Checked here against the space's value lists (the constraints need the parsed space: campaign_validation.cpp).
#include "campaign_sections.hpp"

namespace kforge::scheduler::config_detail {

void read_search_initial(const MapReader& top, CampaignConfig& campaign) {
  MapReader search = top.section("search", {});
  if (!search.has("initial")) return;
  const std::string allowed =
      "a list of genomes, each a mapping with one listed value for every parameter of space.parameters";
  const YAML::Node& list = search.value("initial");
  if (!list.IsSequence()) search.fail("initial", "expected a list, got " + describe_value(list), allowed);
  std::vector<std::string> names;
  for (const ParameterSpec& p : campaign.space.parameters) names.push_back(p.name);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = search.key_path("initial") + "[" + std::to_string(i) + "]";
    if (!list[i].IsMap()) search.fail_at(list[i], path, "expected a mapping, got " + describe_value(list[i]), allowed);
    const MapReader entry(list[i], path, search.file(), names, location_of(list[i].Mark(), search.file()));
    SearchSpec::InitialGenome initial{{}, entry.where()};
    for (const ParameterSpec& p : campaign.space.parameters) {
      if (!entry.has(p.name)) entry.fail_missing(p.name, "one of the values space.parameters." + p.name + " lists");
      const std::string key = entry.key_path(p.name);
      const jobs::ParamValue value = typed_value(entry, entry.value(p.name), key, "a value of the space");
      std::string listed;
      for (const jobs::ParamValue& v : p.values) {
        if (same_value(v, value)) initial.genome.params[p.name] = v;  // as the space spells it: 1.0 -> 1
        listed += (listed.empty() ? "" : ", ") + jobs::to_text(v);
      }
      if (!initial.genome.has(p.name))
        entry.fail(p.name, jobs::to_text(value) + " is not a value of space.parameters." + p.name, "one of: " + listed);
    }
    campaign.search.initial.push_back(std::move(initial));
  }
}

}  // namespace kforge::scheduler::config_detail
