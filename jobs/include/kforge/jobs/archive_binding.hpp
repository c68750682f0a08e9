#pragma once
// What binds the files of a campaign folder to that campaign (docs/archive-schema.md, "What binds a file to
// its campaign"): the campaign id in DIR/campaign-id and the seals of the generation files in campaign.h5.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kforge/jobs/archive.hpp"

namespace kforge::jobs {

// One row of campaign.h5:/seals.
struct GenerationSeal {
  int generation = 0;
  std::string file;    // "gen-0007.h5"
  std::string sha256;  // of the whole file, hex
  std::uint64_t bytes = 0;
  bool operator==(const GenerationSeal&) const = default;
};

// The seals of campaign.h5 in dir, by generation: empty when there is no campaign.h5 or it is a schema-1 index.
// Throws std::runtime_error naming campaign.h5 when it is damaged.
std::map<int, GenerationSeal> read_seals(const std::filesystem::path& dir);

// DIR/campaign-id (32 hex digits), "" when the folder has none (campaigns started before schema 2). Throws when
// the file exists but does not hold an id.
std::string read_campaign_id(const std::filesystem::path& dir);
// Writes a fresh random id when the folder has none; returns the folder's id.
std::string ensure_campaign_id(const std::filesystem::path& dir);

// What every reader of a campaign folder checks its generation files against.
struct CampaignBinding {
  std::string campaign_id;
  std::map<int, GenerationSeal> seals;
};
CampaignBinding read_campaign_binding(const std::filesystem::path& dir);

// Generation g of the campaign in dir (generations 0..count-1 exist), checked against the binding: its campaign
// id, its number, and its seal. A generation file without a seal is accepted only as the newest one (written just
// before a crash, sealed by the next rebuild of the index) or when the index has no seals at all (schema 1).
Generation read_campaign_generation(const std::filesystem::path& dir, const CampaignBinding& binding, int g, int count);

}  // namespace kforge::jobs
