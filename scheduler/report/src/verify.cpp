// kforge verify: the report of jobs::verify_archive for a person (kforge/scheduler/report/verify.hpp).
#include "kforge/scheduler/report/verify.hpp"

#include <stdexcept>

#include "kforge/jobs/archive_verify.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {

bool verify_campaign(const std::filesystem::path& dir, std::ostream& out) {
  const CampaignDir campaign(dir);
  std::error_code ec;
  if (!std::filesystem::exists(campaign.campaign_config(), ec))
    throw std::runtime_error(dir.string() + " is not a kforge campaign directory (no campaign.yaml)");
  const jobs::ArchiveCheck check = jobs::verify_archive(dir);
  for (const auto& note : check.notes) out << "note: " << note << "\n";
  for (const auto& p : check.problems) out << p.file.string() << ": " << p.what << "\n";
  out << dir.string() << ": " << (check.problems.empty() ? "whole" : "DAMAGED") << " (" << check.generation_files
      << " generation files, " << check.seals << " seals, " << check.shards << " shards checked; "
      << check.problems.size() << " problems)" << std::endl;
  return check.problems.empty();
}

}  // namespace kforge::scheduler
