#pragma once
// `kforge export DIR --best`: the best candidate's source, parameters and evidence.
#include <filesystem>
#include <iosfwd>
#include <optional>

#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {

// With `to`: creates the folder and writes <id>.cpp (the exact evaluated source) and <id>.yaml (id, params,
// times, speedups, lineage, evidence); prints their paths. Without: prints the YAML with the source inline.
// Throws std::runtime_error when the campaign has no ok candidate yet.
void export_best(const CampaignDir& dir, const std::optional<std::filesystem::path>& to, std::ostream& out);

}  // namespace kforge::scheduler
