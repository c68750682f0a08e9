#pragma once
// What `kforge submit`, `kforge cancel` and `kforge status` (without DIR) do to a spool. The daemon need not be
// running: requests wait in SPOOL/requests until one starts.
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/config.hpp"
#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::scheduler::daemon {

// A submit or cancel the spool cannot take (name taken by a different campaign, unknown campaign): nothing was
// written; the CLI exits 2.
class RequestRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes a submit request for validated configs. Re-submitting the same campaign text resumes a cancelled or
// failed campaign; a different text under an existing (or pending) name is refused.
void submit_campaign(const Spool& spool, const CampaignConfig& campaign, const SiteConfig& site);
// Writes a cancel request for a campaign of the spool (existing or pending); refuses an unknown name.
void cancel_campaign(const Spool& spool, const std::string& name);

enum class CampaignState { queued, running, done, cancelled, failed };
const char* to_string(CampaignState s);

// A Slurm array of the generation in progress, from the executor's ledger DIR/gNNNN/slurm/jobs.
struct ArrayJob {
  std::string job;     // Slurm job id of the array
  std::string target;  // the island's hardware target
};

// One line of `kforge status` over a spool.
struct SpoolEntry {
  std::string campaign;
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

// Every campaign of the spool, plus pending submits of new names (queued), sorted by name.
std::vector<SpoolEntry> read_spool_status(const Spool& spool);
void write_spool_table(std::ostream& out, const std::vector<SpoolEntry>& entries);
void write_spool_json(std::ostream& out, const Spool& spool, const std::vector<SpoolEntry>& entries);

}  // namespace kforge::scheduler::daemon
