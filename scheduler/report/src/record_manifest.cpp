#include "record_manifest.hpp"

#include <filesystem>

namespace kforge::scheduler {

std::optional<jobs::TaskManifest> manifest_of(const CampaignDir& dir, const jobs::EvalRecord& record) {
  for (int t = 0; std::filesystem::exists(dir.manifest(record.generation, t)); ++t) {
    try {
      jobs::TaskManifest m = jobs::read_manifest(dir.manifest(record.generation, t));
      if (m.target != record.target) continue;
      for (const auto& c : m.candidates)
        if (c.id == record.candidate_id) return m;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

}  // namespace kforge::scheduler
