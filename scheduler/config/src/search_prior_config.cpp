// search.prior: what an earlier campaign or a Kernel Tuner cache measured of the same space, for a warm start.
#include <system_error>

#include "campaign_sections.hpp"

namespace kforge::scheduler::config_detail {

void read_search_prior(const MapReader& top, CampaignConfig& campaign) {
  MapReader search = top.section("search", {});
  const std::string allowed =
      "none, or a list of folders of earlier campaigns (holding campaign.h5) and Kernel Tuner caches (.json, "
      ".json.gz), relative to the campaign file";
  if (!search.has("prior")) return;  // the catalog's campaigns of this space
  const YAML::Node& list = search.value("prior");
  if (list.IsScalar() && list.Scalar() == "none") {
    campaign.search.prior_from = "none";
    return;
  }
  if (!list.IsSequence()) search.fail("prior", "expected none or a list, got " + describe_value(list), allowed);
  campaign.search.prior_from = "listed";
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string key = search.key_path("prior") + "[" + std::to_string(i) + "]";
    if (!list[i].IsScalar() || list[i].Scalar().empty())
      search.fail_at(list[i], key, "expected a path, got " + describe_value(list[i]), allowed);
    std::filesystem::path path = list[i].Scalar();
    if (path.is_relative()) path = std::filesystem::absolute(campaign.file).parent_path() / path;
    path = path.lexically_normal();
    std::error_code ec;
    const std::string name = path.filename().string();
    const bool cache = name.ends_with(".json") || name.ends_with(".json.gz");
    if (cache && !std::filesystem::is_regular_file(path, ec))
      search.fail_at(list[i], key, "no such file: " + path.string(), allowed);
    if (!cache && !std::filesystem::is_regular_file(path / "campaign.h5", ec))
      search.fail_at(list[i], key, "no finished campaign in " + path.string() + " (no campaign.h5)", allowed);
    campaign.search.prior.push_back(path);
  }
}

}  // namespace kforge::scheduler::config_detail
