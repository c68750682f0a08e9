#pragma once
// Campaigns run only from accepted requests. When kforged accepts a submit it records, in SPOOL/accepted/USER/NAME
// (folders 0700 and files 0600 of the daemon's user: no user can write or read them), the SHA-256 of the
// campaign.yaml it wrote for that campaign. Before it starts a campaign it compares that digest with the
// campaign.yaml in the folder: a folder made by hand (no request, no audit line, none of the daemon's checks) or
// a campaign.yaml rewritten by hand since is never run; the campaign is marked failed saying so, and submitting
// the campaign file again (kforge submit) is how it runs.
#include <filesystem>
#include <string>

#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::scheduler::daemon {

class AcceptedCampaigns {
 public:
  explicit AcceptedCampaigns(const Spool& spool) : dir_(spool.accepted_dir()) {}

  // Records `campaign_text` as what C runs from now on. Throws std::runtime_error naming the file.
  void record(const CampaignRef& c, const std::string& campaign_text) const;
  // The recorded SHA-256 of C's accepted campaign.yaml; "" when C was never accepted.
  std::string digest(const CampaignRef& c) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace kforge::scheduler::daemon
