#pragma once
// kforged's core: picks up requests, runs one `kforge run` child per unfinished campaign, restarts failed children
// with backoff, stops them on cancel or shutdown. Every file below SPOOL/campaigns/USER is read and written by a
// helper that is USER (as_user.hpp): whatever a user does to their folder ends in that user's campaign (marked
// failed, logged once, shown by `kforge status`), never in the daemon, and campaigns run only from accepted
// requests (accepted.hpp). It keeps nothing that matters in memory: on restart it reads the
// spool and re-spawns a child for every campaign that is neither done, cancelled nor failed, and that child resumes
// from the campaign directory (re-attaching to submitted jobs is the executor's business, not the daemon's).
//
// Signals the children get, and what they mean (the contract an executor relies on):
//   SIGTERM, DIR/CANCELLED absent   the daemon stops or died: stop driving, LEAVE submitted jobs running, so the
//                                   next daemon's child re-attaches to them by the ids in the campaign directory.
//   SIGTERM, DIR/CANCELLED present  the campaign was cancelled: also cancel submitted jobs (Slurm executor: scancel
//                                   its arrays). The daemon writes CANCELLED before it sends SIGTERM.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "kforge/scheduler/daemon/accepted.hpp"
#include "kforge/scheduler/daemon/audit.hpp"
#include "kforge/scheduler/daemon/identity.hpp"
#include "kforge/scheduler/daemon/log.hpp"
#include "kforge/scheduler/daemon/request.hpp"
#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::scheduler::daemon {

class SignalWait;
struct CampaignProbe;
struct StoredState;

struct DaemonOptions {
  std::filesystem::path spool;
  std::filesystem::path kforge_binary;
  SpoolPolicy policy;    // multi-user (root) or single-user, and the admin group
  bool once = false;     // run every campaign to its end (done, cancelled or failed), then exit
  int max_restarts = 5;  // a child failing more often than this marks its campaign FAILED
  std::chrono::milliseconds first_backoff{1000};  // doubled after each failure
  std::chrono::milliseconds max_backoff{60000};
  std::chrono::milliseconds poll{1000};           // rescan at least this often; each user's folder at most this often
  std::chrono::milliseconds idle_look{60000};     // a user folder with nothing due is looked at this often
  std::chrono::milliseconds stop_grace{30000};    // SIGTERM-ed children get this long before SIGKILL
  std::chrono::milliseconds helper_limit{10000};  // a helper acting as a user (as_user.hpp) is killed after this
};

class Supervisor {
 public:
  Supervisor(DaemonOptions options, Log& log);
  // Runs until SIGTERM/SIGINT (returns 0) or, with `once`, until no campaign has work left (0, or 1 when a
  // campaign failed during this run). The caller holds the SpoolLock.
  int run();

 private:
  using Clock = std::chrono::steady_clock;
  struct Slot {
    pid_t pid = -1;
    int report_fd = -1;            // the running child's report pipe (child_process.hpp)
    int failures = 0;              // consecutive failed runs
    Clock::time_point not_before;  // backoff: no restart before this
    int generations_at_start = 0;  // progress resets the failure count
    bool cancelling = false;       // SIGTERM sent for a cancel
    bool waiting = false;          // another process holds the campaign lock
    bool known = false;            // its folder was seen holding a campaign
    bool finished = false;         // done, cancelled or failed: not looked at again until a request comes
  };
  // A user folder of campaigns/ and the account it belongs to.
  struct Owner {
    Account account;
    Clock::time_point next_look;  // the folder is examined at most once per poll, less often when idle or failing
    int look_failures = 0;        // consecutive helpers that gave no answer for this folder
  };

  // Requests (supervisor_requests.cpp).
  void handle_requests();
  bool requests_to_handle() const;  // requests wait that are not known to be undeletable
  void handle(const ReceivedRequest& in);
  void handle_submit(const CampaignRef& c, const Account& owner, const Request& r);
  void handle_cancel(const CampaignRef& c, const Account& by);
  // Why `by` may not cancel a campaign of `owner`; "" when it may (the owner, root, a member of the admin group).
  std::string cancel_refusal(const Account& by, const std::string& owner) const;

  // Campaign folders (supervisor_campaigns.cpp).
  Owner* owner_of(const std::string& name);  // resolved once; nullptr (logged once) when unusable
  int start_due_campaigns();                 // returns how many campaigns still have work (running, due, or in backoff)
  void look_at(const std::string& name, Owner& owner, Clock::time_point now);
  // When to look at OWNER's folder again: within a poll while a campaign there waits to (re)start, else after
  // idle_look (new campaigns come through requests, which look at once; the idle look finds folders made by hand).
  Clock::time_point next_look_at(const std::string& name, Clock::time_point now) const;
  void consider(const CampaignRef& c, const Account& owner, const CampaignProbe& p, Clock::time_point now);
  // Runs `work` in a helper that is `owner` (as_user.hpp) and returns its answer; throws HelperFailed.
  std::string as_owner(const Account& owner, const std::function<std::string()>& work) const;

  // Children (supervisor.cpp).
  void start(const CampaignRef& c, const Account& owner, Slot& slot, const StoredState& state);
  void reap_children();
  void on_child_end(const CampaignRef& c, Slot& slot, int status);
  void on_child_failure(const CampaignRef& c, const Account& owner, Slot& slot, int status, std::string reason,
                        const StoredState& state);
  // Marks C failed for good (until submitted again): in memory at once, in DIR/FAILED through the owner's helper
  // when that folder can take it. Logged once.
  void mark_failed(const CampaignRef& c, const Account& owner, const std::string& reason);
  std::chrono::milliseconds backoff_after(int failures) const;
  void stop_children(SignalWait& signals);
  std::chrono::milliseconds next_wakeup() const;
  mode_t child_umask() const { return options_.policy.admin_group ? 027 : 077; }

  DaemonOptions options_;
  Spool spool_;
  Log& log_;
  Account self_;  // the daemon's own account
  std::unique_ptr<AuditLog> audit_;
  AcceptedCampaigns accepted_;
  std::map<std::string, Owner> owners_;            // campaigns/OWNER -> the account, checked against the folder
  std::map<std::string, std::string> bad_owners_;  // OWNER -> why it is skipped (logged once)
  std::map<CampaignRef, Slot> slots_;
  std::set<std::string> undeletable_requests_;  // request files that could not be removed (logged once each)
  bool more_requests_ = false;                  // a round left requests for the next one
  bool failed_during_run_ = false;
  bool stopping_ = false;
};

}  // namespace kforge::scheduler::daemon
