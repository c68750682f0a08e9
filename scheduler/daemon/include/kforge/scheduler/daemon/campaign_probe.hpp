#pragma once
// What kforged needs to know about a user's campaign folders. It is read inside a helper that is that user
// (as_user.hpp), following user_file.hpp's rules, and carried back to the daemon as a record: the daemon itself
// never opens a file below SPOOL/campaigns/USER.
#include <set>
#include <string>
#include <vector>

#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::scheduler::daemon {

// What the campaign directory says about a campaign, without any daemon's memory.
struct StoredState {
  int generations_done = 0;
  int generations_planned = 0;
  bool cancelled = false;
  bool failed = false;
  std::string failure_reason;  // FAILED's text
  bool done() const { return generations_done >= generations_planned; }
  bool finished() const { return done() || cancelled || failed; }  // nothing left for a daemon to do
};

// One folder of SPOOL/campaigns/USER as its owner sees it.
struct CampaignProbe {
  std::string name;
  bool campaign = false;  // holds a campaign.yaml, or cannot be examined (problem); else it is ignored
  std::string problem;    // why it cannot be read: "DIR: is a symbolic link ...", "DIR/campaign.yaml: is a FIFO ..."
  std::string config_digest;  // SHA-256 of campaign.yaml as it is now (accepted.hpp)
  StoredState state;
  long driver_pid = 0;        // the process holding DIR/kforge.lock (campaign_driver_pid)
  std::string last_log_line;  // of DIR/kforge.log: a failed child's last words
};

// At most this many folders of one user are examined in one go; more are left for later rounds and logged.
inline constexpr std::size_t kMaxCampaignsPerUser = 1000;

// Inside the helper: the folder DIR of campaign C.
CampaignProbe probe_campaign(const Spool& spool, const CampaignRef& c);
// Inside the helper: every folder of OWNER (valid names, sorted, at most kMaxCampaignsPerUser) not named in `skip`.
std::vector<CampaignProbe> probe_user_folder(const Spool& spool, const std::string& owner,
                                             const std::set<std::string>& skip);

std::string encode_probes(const std::vector<CampaignProbe>& probes);
// Throws std::runtime_error on a malformed record.
std::vector<CampaignProbe> decode_probes(const std::string& text);

}  // namespace kforge::scheduler::daemon
