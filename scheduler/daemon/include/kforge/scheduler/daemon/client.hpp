#pragma once
// What `kforge submit`, `kforge cancel` and `kforge status` (without DIR) do to a spool. The daemon need not be
// running: requests wait in SPOOL/requests until one starts.
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::scheduler::daemon {

// A submit or cancel the spool cannot take (name taken by a different campaign, unknown campaign): nothing was
// written; the CLI exits 2.
class RequestRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether the caller can see campaign C's folder: its permission is the client's view of who may act on it.
enum class CampaignVisibility { visible, missing, forbidden };
CampaignVisibility campaign_visibility(const Spool& spool, const CampaignRef& c);
// "permission denied: campaign 'x' of user alice (in SPOOL/campaigns/alice) is visible only to ..."
std::string not_visible_message(const Spool& spool, const CampaignRef& c);

// The user running this process (campaign names are per user: SPOOL/campaigns/USER/NAME).
std::string current_user_name();

// Writes a submit request for validated configs. Re-submitting the same campaign text resumes a cancelled or
// failed campaign; a different text under an existing (or pending) name of the same user is refused. Root is
// refused: no kforged runs a campaign as root (docs/daemon.md).
void submit_campaign(const Spool& spool, const CampaignConfig& campaign, const SiteConfig& site);
// Writes a cancel request for campaign NAME of `owner` ("" = the caller's own). Refuses an unknown name, and a
// campaign the caller cannot see (another user's, unless the caller is root or in the daemon's admin group):
// the daemon checks the same again from the request file's owner.
void cancel_campaign(const Spool& spool, const std::string& name, const std::string& owner = "");

enum class CampaignState { queued, running, done, cancelled, failed };
const char* to_string(CampaignState s);

// A Slurm array of the generation in progress, from the executor's ledger DIR/gNNNN/slurm/jobs.
struct ArrayJob {
  std::string job;     // Slurm job id of the array
  std::string target;  // the island's hardware target
};

// One line of `kforge status` over a spool, and the whole of `kforge status NAME`: one schema for both
// (docs/daemon.md), versioned by kSpoolStatusSchemaVersion.
inline constexpr int kSpoolStatusSchemaVersion = 1;
struct SpoolEntry {
  std::string owner;
  std::string campaign;
  std::string directory;
  CampaignState state = CampaignState::queued;
  int generations_done = 0;
  int generations_planned = 0;
  int tasks_done = 0;  // of the generation in progress
  int tasks = 0;
  int evaluations = 0;
  double best_ms = jobs::kNaN;
  std::vector<ArrayJob> jobs;  // empty with the local executor
  double eta_s = jobs::kNaN;   // remaining generations at the mean pace so far; NaN when unknown
  std::string reason;          // why it failed (FAILED's text), or why it could not be read
};

// Every campaign of the spool the caller may see (its own; every user's for root and the admin group), plus the
// caller's pending submits of new names (queued) where requests/ can be listed, sorted by owner and name.
std::vector<SpoolEntry> read_spool_status(const Spool& spool);
// Campaign NAME of `owner` ("" = the caller): its entry, a pending submit of the caller's (queued), or
// RequestRefused saying it does not exist or that the caller may not see it.
SpoolEntry read_campaign_status(const Spool& spool, const std::string& name, const std::string& owner = "");
void write_spool_table(std::ostream& out, const std::vector<SpoolEntry>& entries);
void write_spool_json(std::ostream& out, const Spool& spool, const std::vector<SpoolEntry>& entries);

}  // namespace kforge::scheduler::daemon
