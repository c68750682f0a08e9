#include "kforge/scheduler/daemon/supervisor.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/campaign_change.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/config.hpp"
#include "kforge/scheduler/daemon/child_process.hpp"
#include "signal_wait.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {
constexpr const char* kSelf = "kforged";

bool remove_file(const fs::path& p) {
  std::error_code ec;
  return fs::remove(p, ec);
}
}  // namespace

Supervisor::Supervisor(DaemonOptions options, Log& log)
    : options_(std::move(options)),
      spool_(options_.spool),
      log_(log),
      self_(account_by_uid(::geteuid())),
      audit_(std::make_unique<AuditLog>(spool_.audit_log())) {}

int Supervisor::run() {
  SignalWait signals(spool_.requests_dir());
  log_.info(kSelf, "watching " + spool_.root().string() + " (child: " + options_.kforge_binary.string() + " run" +
                       (options_.once ? "; --once: exits when every campaign has ended)" : ")"));
  log_.info(
      kSelf,
      options_.policy.multi_user
          ? "multi-user mode: each campaign runs as the user who submitted it; audit log " + spool_.audit_log().string()
          : "single-user mode: campaigns run as " + describe(self_) + ", requests of other users are refused");
  bool stop = false;
  while (!stop) {
    handle_requests();
    reap_children();
    const int with_work = start_due_campaigns();
    if (options_.once && with_work == 0 && pending_requests(spool_).empty()) {
      log_.info(kSelf, "every campaign has ended; exiting (--once)");
      break;
    }
    stop = signals.wait(next_wakeup()).stop;
  }
  if (stop) log_.info(kSelf, "stop requested; stopping the kforge children (their submitted jobs are left running)");
  stop_children(signals);
  return options_.once && failed_during_run_ ? 1 : 0;
}

void Supervisor::handle_requests() {
  for (const fs::path& file : pending_requests(spool_)) {
    try {
      handle(receive_request(file));
    } catch (const std::exception& e) {
      log_.error(kSelf, "request " + file.filename().string() + " dropped: " + e.what());
      audit_->record("request", static_cast<uid_t>(-1), "", "-", std::string("dropped: ") + e.what());
    }
    remove_file(file);  // only now: a daemon killed before this line acts on the request again, harmlessly
  }
}

void Supervisor::handle(const ReceivedRequest& in) {
  const Request& r = in.request;
  const char* action = r.kind == RequestKind::submit ? "submit" : "cancel";
  Account by;
  try {
    by = account_by_uid(in.submitter);
  } catch (const std::exception& e) {
    log_.error(kSelf, std::string(action) + " of '" + r.name + "' refused: " + e.what());
    audit_->record(action, in.submitter, "", r.name, std::string("refused: ") + e.what());
    return;
  }
  const std::string owner = r.kind == RequestKind::cancel && !r.owner.empty() ? r.owner : by.name;
  const CampaignRef c{owner, r.name};
  std::string refusal;
  if (!options_.policy.multi_user && by.uid != self_.uid) {
    refusal = "this kforged runs as " + describe(self_) + " (single-user mode) and takes requests of that user only";
  } else if (r.kind == RequestKind::submit && options_.policy.multi_user && by.uid == 0) {
    refusal = "campaigns never run as root: submit as the user the campaign should run as";
  } else if (r.kind == RequestKind::cancel) {
    refusal = cancel_refusal(by, owner);
  }
  if (!refusal.empty()) {
    log_.warning(c.key(), std::string(action) + " by " + describe(by) + " refused: " + refusal);
    audit_->record(action, by.uid, by.name, c.key(), "refused: " + refusal);
    return;
  }
  try {
    r.kind == RequestKind::submit ? handle_submit(c, by, r) : handle_cancel(c, by);
  } catch (const std::exception& e) {
    log_.error(c.key(), std::string(action) + " by " + describe(by) + " failed: " + e.what());
    audit_->record(action, by.uid, by.name, c.key(), std::string("failed: ") + e.what());
  }
}

std::string Supervisor::cancel_refusal(const Account& by, const std::string& owner) const {
  if (by.name == owner || by.uid == 0) return "";
  if (options_.policy.admin_group && by.in_group(*options_.policy.admin_group)) return "";
  return "the campaign belongs to " + owner + ", and " + by.name +
         (options_.policy.admin_group ? " is not in the admin group" : " is not its owner (no --admin-group set)");
}

void Supervisor::handle_submit(const CampaignRef& c, const Account& owner, const Request& r) {
  // `kforge submit` validated both texts; a hand-written request gets the same checks here.
  const CampaignConfig campaign = parse_campaign(r.campaign_text, "<submitted campaign.yaml of " + r.name + ">");
  parse_site(r.site_text, "<submitted site.yaml of " + r.name + ">");
  if (campaign.name != r.name) {
    throw std::runtime_error("the request names '" + r.name + "' but its campaign.yaml names '" + campaign.name + "'");
  }
  spool_.create_user_dir(c.owner, owner.uid, owner.gid, options_.policy);
  owners_[c.owner] = owner;
  bad_owners_.erase(c.owner);
  const ActingAs as(owner);  // from here on every file is read and written as the owner
  const CampaignDir dir = spool_.campaign(c);
  if (fs::exists(dir.campaign_config())) {
    // The same rule as `kforge run` on an existing directory: only search.generations may change (extending).
    try {
      if (update_stored_campaign(dir, r.campaign_text)) log_.info(c.key(), "campaign.yaml updated (extended)");
    } catch (const CampaignChangeRefused& e) {
      log_.error(c.key(), std::string("submit refused: ") + e.what());
      audit_->record("submit", owner.uid, owner.name, c.key(), "refused: the campaign file changed other keys");
      return;
    }
    jobs::write_text_file_atomically(dir.site_config(), r.site_text);  // used from the child's next start on
    const bool cancelled = remove_file(spool_.cancelled_marker(c));
    const bool failed = remove_file(spool_.failed_marker(c));
    slots_[c].failures = 0;
    slots_[c].not_before = {};
    log_.info(c.key(), cancelled || failed ? "re-submitted: resuming the " +
                                                 std::string(cancelled ? "cancelled" : "failed") + " campaign"
                                           : "re-submitted: already known, site.yaml updated");
    audit_->record("submit", owner.uid, owner.name, c.key(), "accepted (re-submit)");
    return;
  }
  fs::create_directories(dir.root());
  jobs::write_text_file_atomically(dir.site_config(), r.site_text);
  jobs::write_text_file_atomically(dir.campaign_config(), r.campaign_text);  // last: its presence makes a campaign
  log_.info(c.key(), "submitted by " + describe(owner) + ": " + std::to_string(campaign.search.generations) +
                         " generations, in " + dir.root().string());
  audit_->record("submit", owner.uid, owner.name, c.key(), "accepted");
}

void Supervisor::handle_cancel(const CampaignRef& c, const Account& by) {
  const Account* owner = owner_account(c);
  if (!owner) {
    log_.warning(c.key(), "cancel by " + describe(by) + " ignored: no such campaign");
    audit_->record("cancel", by.uid, by.name, c.key(), "ignored: no such campaign");
    return;
  }
  const ActingAs as(*owner);
  if (!fs::exists(spool_.campaign(c).campaign_config())) {
    log_.warning(c.key(),
                 "cancel by " + describe(by) + " ignored: no such campaign in " + spool_.user_dir(c.owner).string());
    audit_->record("cancel", by.uid, by.name, c.key(), "ignored: no such campaign");
    return;
  }
  const StoredState state = read_stored_state(spool_, c);
  if (state.done()) {
    log_.info(c.key(), "cancel by " + describe(by) + " ignored: the campaign is already done");
    audit_->record("cancel", by.uid, by.name, c.key(), "ignored: already done");
    return;
  }
  // CANCELLED first, then SIGTERM: the child (and an executor's cleanup) sees the marker when the signal arrives,
  // and a daemon killed in between never restarts the campaign.
  if (!state.cancelled) {
    jobs::write_text_file_atomically(spool_.cancelled_marker(c),
                                     "cancelled " + jobs::iso8601_now() + " by " + by.name + "\n");
  }
  audit_->record("cancel", by.uid, by.name, c.key(), "accepted");
  Slot& slot = slots_[c];
  if (slot.pid > 0 && !slot.cancelling) {
    ::kill(slot.pid, SIGTERM);
    slot.cancelling = true;
    log_.info(c.key(),
              "cancelled by " + describe(by) + ": SIGTERM sent to kforge run (pid " + std::to_string(slot.pid) + ")");
  } else {
    log_.info(c.key(), "cancelled by " + describe(by));
  }
}

const Account* Supervisor::owner_account(const CampaignRef& c) {
  if (auto it = owners_.find(c.owner); it != owners_.end()) return &it->second;
  if (bad_owners_.count(c.owner)) return nullptr;
  std::string why;
  try {
    Account a = account_by_name(c.owner);
    struct stat st {};
    const fs::path dir = spool_.user_dir(c.owner);
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      why = dir.string() + " is not a directory";
    } else if (st.st_uid != a.uid) {
      why = dir.string() + " belongs to uid " + std::to_string(st.st_uid) + ", not to " + describe(a);
    } else if (!options_.policy.multi_user && a.uid != self_.uid) {
      why = "single-user mode: this kforged runs as " + describe(self_);
    } else {
      return &(owners_[c.owner] = std::move(a));
    }
  } catch (const std::exception& e) {
    why = e.what();
  }
  log_.error(c.key(), "campaigns of '" + c.owner + "' are not run: " + why);
  bad_owners_[c.owner] = why;
  return nullptr;
}

int Supervisor::start_due_campaigns() {
  int with_work = 0;
  const auto now = Clock::now();
  for (const CampaignRef& c : spool_.campaigns()) {
    Slot& slot = slots_[c];
    if (slot.pid > 0) {
      ++with_work;
      continue;
    }
    const Account* owner = owner_account(c);
    if (!owner) continue;
    const ActingAs as(*owner);
    if (fs::exists(spool_.cancelled_marker(c)) || fs::exists(spool_.failed_marker(c))) continue;
    StoredState state;
    try {
      state = read_stored_state(spool_, c);
    } catch (const std::exception& e) {
      mark_failed(c, std::string("cannot read the campaign directory: ") + e.what());
      continue;
    }
    if (state.done()) continue;
    ++with_work;
    if (now < slot.not_before) continue;
    // A previous driver may still be stopping (a killed daemon's child finishing its SIGTERM), or a person runs
    // `kforge run` on the folder: wait for the lock instead of starting a child that would fail on it.
    if (const long holder = campaign_driver_pid(spool_.campaign(c)); holder != 0) {
      if (!slot.waiting) log_.info(c.key(), "waiting: another process (pid " + std::to_string(holder) + ") drives it");
      slot.waiting = true;
      continue;
    }
    slot.waiting = false;
    start(c, *owner, slot, state);
  }
  return with_work;
}

void Supervisor::start(const CampaignRef& c, const Account& owner, Slot& slot, const StoredState& state) {
  try {
    const CampaignDir dir = spool_.campaign(c);
    slot.pid = spawn_child(kforge_run_command(options_.kforge_binary, dir.root()), spool_.child_log(c), owner,
                           options_.policy.multi_user, child_umask());
    slot.cancelling = false;
    slot.generations_at_start = state.generations_done;
    log_.info(c.key(), "started kforge run (pid " + std::to_string(slot.pid) + ", as " + describe(owner) +
                           ") at generation " + std::to_string(state.generations_done) + "/" +
                           std::to_string(state.generations_planned) + "; log " + spool_.child_log(c).string());
  } catch (const std::exception& e) {
    ++slot.failures;
    slot.not_before = Clock::now() + options_.max_backoff;
    log_.error(c.key(), std::string("could not start kforge run: ") + e.what());
  }
}

void Supervisor::reap_children() {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (auto& [c, slot] : slots_) {
      if (slot.pid != pid) continue;
      slot.pid = -1;
      on_child_end(c, slot, status);
      break;
    }
  }
}

void Supervisor::on_child_end(const CampaignRef& c, Slot& slot, int status) {
  const std::string how = describe_wait_status(status);
  const Account* owner = owner_account(c);
  if (!owner) return;
  const ActingAs as(*owner);
  if (slot.cancelling || fs::exists(spool_.cancelled_marker(c))) {
    slot.cancelling = false;
    log_.info(c.key(), "kforge run " + how + " after the cancel; the campaign stays cancelled");
    return;
  }
  if (stopping_) {
    log_.info(c.key(), "kforge run " + how + "; a restarted kforged resumes the campaign");
    return;
  }
  StoredState state;
  try {
    state = read_stored_state(spool_, c);
  } catch (const std::exception& e) {
    mark_failed(c, std::string("cannot read the campaign directory: ") + e.what());
    return;
  }
  const bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (exited_ok && state.done()) {
    slot.failures = 0;
    log_.info(c.key(), "done: " + std::to_string(state.generations_done) + " generations in " +
                           spool_.campaign(c).index_file().string());
    return;
  }
  std::string reason = "kforge run " + how;
  if (exited_ok)
    reason += " with " + std::to_string(state.generations_done) + "/" + std::to_string(state.generations_planned) +
              " generations";
  if (const std::string last = last_line_of(spool_.child_log(c)); !last.empty()) reason += ": " + last;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
    mark_failed(c, reason + " (an invalid configuration: not retried)");
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {  // docs/cli.md: a generation failed for infrastructure
    mark_failed(c, reason + " (a whole generation failed for infrastructure reasons: not retried until re-submitted)");
    return;
  }
  if (state.generations_done > slot.generations_at_start) slot.failures = 0;  // it made progress: a fresh budget
  if (++slot.failures > options_.max_restarts) {
    mark_failed(c, reason + " (" + std::to_string(slot.failures) + " failures in a row)");
    return;
  }
  const int doublings = std::min(slot.failures - 1, 16);
  const milliseconds backoff = std::min(options_.max_backoff, options_.first_backoff * (1 << doublings));
  slot.not_before = Clock::now() + backoff;
  log_.warning(c.key(), reason + "; restart " + std::to_string(slot.failures) + "/" +
                            std::to_string(options_.max_restarts) + " in " +
                            std::to_string(backoff.count() / 1000.0).substr(0, 4) + " s (log " +
                            spool_.child_log(c).string() + ")");
}

void Supervisor::mark_failed(const CampaignRef& c, const std::string& reason) {
  failed_during_run_ = true;
  log_.error(c.key(), "failed: " + reason + "; `kforge submit` the same campaign file again to retry");
  try {
    jobs::write_text_file_atomically(spool_.failed_marker(c), reason + "\n");
  } catch (const std::exception& e) {
    log_.error(c.key(), std::string("could not record the failure: ") + e.what());
  }
}

void Supervisor::stop_children(SignalWait& signals) {
  stopping_ = true;
  auto running = [this] {
    return std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return s.second.pid > 0; });
  };
  for (const auto& [name, slot] : slots_) {
    if (slot.pid > 0) ::kill(slot.pid, SIGTERM);
  }
  const auto deadline = Clock::now() + options_.stop_grace;
  while (running() > 0 && Clock::now() < deadline) {
    signals.wait(milliseconds(200));
    reap_children();
  }
  for (auto& [c, slot] : slots_) {
    if (slot.pid <= 0) continue;
    log_.warning(c.key(), "kforge run (pid " + std::to_string(slot.pid) + ") ignored SIGTERM; sending SIGKILL");
    ::kill(slot.pid, SIGKILL);
    ::waitpid(slot.pid, nullptr, 0);
    slot.pid = -1;
  }
}

milliseconds Supervisor::next_wakeup() const {
  milliseconds wait = options_.poll;
  const auto now = Clock::now();
  for (const auto& [name, slot] : slots_) {
    if (slot.pid > 0 || slot.not_before <= now) continue;
    wait = std::min(wait, std::chrono::duration_cast<milliseconds>(slot.not_before - now) + milliseconds(1));
  }
  return std::max(wait, milliseconds(10));
}

}  // namespace kforge::scheduler::daemon
