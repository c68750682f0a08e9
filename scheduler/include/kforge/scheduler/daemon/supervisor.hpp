#pragma once
// kforged's core: picks up requests, runs one `kforge run` child per unfinished campaign, restarts failed children
// with backoff, stops them on cancel or shutdown. It keeps nothing that matters in memory: on restart it reads the
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
#include <map>
#include <memory>
#include <string>

#include "kforge/scheduler/daemon/audit.hpp"
#include "kforge/scheduler/daemon/identity.hpp"
#include "kforge/scheduler/daemon/log.hpp"
#include "kforge/scheduler/daemon/request.hpp"
#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::scheduler::daemon {

class SignalWait;
struct StoredState;

struct DaemonOptions {
  std::filesystem::path spool;
  std::filesystem::path kforge_binary;
  SpoolPolicy policy;    // multi-user (root) or single-user, and the admin group
  bool once = false;     // run every campaign to its end (done, cancelled or failed), then exit
  int max_restarts = 5;  // a child failing more often than this marks its campaign FAILED
  std::chrono::milliseconds first_backoff{1000};  // doubled after each failure
  std::chrono::milliseconds max_backoff{60000};
  std::chrono::milliseconds poll{1000};         // rescan at least this often
  std::chrono::milliseconds stop_grace{30000};  // SIGTERM-ed children get this long before SIGKILL
};

class Supervisor {
 public:
  Supervisor(DaemonOptions options, Log& log);
  // Runs until SIGTERM/SIGINT (returns 0) or, with `once`, until no campaign has work left (0, or 1 when a
  // campaign failed during this run). The caller holds the SpoolLock.
  int run();

 private:
  struct Slot {
    pid_t pid = -1;
    int failures = 0;                                  // consecutive failed runs
    std::chrono::steady_clock::time_point not_before;  // backoff: no restart before this
    int generations_at_start = 0;                      // progress resets the failure count
    bool cancelling = false;                           // SIGTERM sent for a cancel
    bool waiting = false;                              // another process holds the campaign lock
  };

  void handle_requests();
  void handle(const ReceivedRequest& in);
  void handle_submit(const CampaignRef& c, const Account& owner, const Request& r);
  void handle_cancel(const CampaignRef& c, const Account& by);
  // Why `by` may not cancel a campaign of `owner`; "" when it may (the owner, root, a member of the admin group).
  std::string cancel_refusal(const Account& by, const std::string& owner) const;
  const Account* owner_account(const CampaignRef& c);  // resolved once; nullptr (logged) when unusable
  int start_due_campaigns();  // returns how many campaigns still have work (running, due, or in backoff)
  void start(const CampaignRef& c, const Account& owner, Slot& slot, const StoredState& state);
  void reap_children();
  void on_child_end(const CampaignRef& c, Slot& slot, int status);
  void mark_failed(const CampaignRef& c, const std::string& reason);
  void stop_children(SignalWait& signals);
  std::chrono::milliseconds next_wakeup() const;
  mode_t child_umask() const { return options_.policy.admin_group ? 027 : 077; }

  DaemonOptions options_;
  Spool spool_;
  Log& log_;
  Account self_;  // the daemon's own account
  std::unique_ptr<AuditLog> audit_;
  std::map<std::string, Account> owners_;          // campaigns/OWNER -> the account, checked against the folder
  std::map<std::string, std::string> bad_owners_;  // OWNER -> why it is skipped (logged once)
  std::map<CampaignRef, Slot> slots_;
  bool failed_during_run_ = false;
  bool stopping_ = false;
};

}  // namespace kforge::scheduler::daemon
