#include "kforge/scheduler/daemon/supervisor.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/daemon/as_user.hpp"
#include "kforge/scheduler/daemon/campaign_probe.hpp"
#include "kforge/scheduler/daemon/child_process.hpp"
#include "kforge/scheduler/daemon/user_file.hpp"
#include "signal_wait.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {
constexpr const char* kSelf = "kforged";
}  // namespace

Supervisor::Supervisor(DaemonOptions options, Log& log)
    : options_(std::move(options)),
      spool_(options_.spool),
      log_(log),
      self_(account_by_uid(::geteuid())),
      audit_(std::make_unique<AuditLog>(spool_.audit_log())),
      accepted_(spool_) {}

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
    if (options_.once && with_work == 0 && !more_requests_ && !requests_to_handle()) {
      log_.info(kSelf, "every campaign has ended; exiting (--once)");
      break;
    }
    stop = signals.wait(next_wakeup()).stop;
  }
  if (stop) log_.info(kSelf, "stop requested; stopping the kforge children (their submitted jobs are left running)");
  stop_children(signals);
  return options_.once && failed_during_run_ ? 1 : 0;
}

bool Supervisor::requests_to_handle() const {
  const std::vector<fs::path> files = pending_requests(spool_);
  return std::any_of(files.begin(), files.end(),
                     [&](const fs::path& f) { return !undeletable_requests_.count(f.filename().string()); });
}

std::string Supervisor::as_owner(const Account& owner, const std::function<std::string()>& work) const {
  return run_as(owner, options_.policy.multi_user, options_.helper_limit, work);
}

void Supervisor::start(const CampaignRef& c, const Account& owner, Slot& slot, const StoredState& state) {
  try {
    const CampaignDir dir = spool_.campaign(c);
    const fs::path tmpdir = options_.policy.multi_user ? spool_.tmp_dir(c.owner) : fs::path();
    const StartedChild child = spawn_child(kforge_run_command(options_.kforge_binary, dir.root()), spool_.child_log(c),
                                           tmpdir, owner, options_.policy.multi_user, child_umask());
    slot.pid = child.pid;
    slot.report_fd = child.report_fd;
    slot.cancelling = false;
    slot.generations_at_start = state.generations_done;
    log_.info(c.key(), "started kforge run (pid " + std::to_string(slot.pid) + ", as " + describe(owner) +
                           ") at generation " + std::to_string(state.generations_done) + "/" +
                           std::to_string(state.generations_planned) + "; log " + spool_.child_log(c).string());
  } catch (const std::exception& e) {
    const milliseconds backoff = backoff_after(++slot.failures);
    slot.not_before = Clock::now() + backoff;
    log_.error(c.key(), std::string("could not start kforge run: ") + e.what() + "; next try in " +
                            std::to_string(backoff.count() / 1000) + " s");
  }
}

void Supervisor::reap_children() {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (auto& [c, slot] : slots_) {  // a pid of no slot is a helper that was killed and left to be reaped here
      if (slot.pid != pid) continue;
      slot.pid = -1;
      on_child_end(c, slot, status);
      break;
    }
  }
}

void Supervisor::on_child_end(const CampaignRef& c, Slot& slot, int status) {
  const std::string report = take_child_report(slot.report_fd);
  slot.report_fd = -1;
  const std::string how = describe_wait_status(status);
  Owner* owner = owner_of(c.owner);
  if (!owner) return;
  owner->next_look = {};  // a restart, or what the child left, is due for a look
  if (slot.cancelling) {
    slot.cancelling = false;
    slot.finished = true;
    log_.info(c.key(), "kforge run " + how + " after the cancel; the campaign stays cancelled");
    return;
  }
  if (stopping_) {
    log_.info(c.key(), "kforge run " + how + "; a restarted kforged resumes the campaign");
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kChildSetupFailed) {
    mark_failed(c, owner->account, "kforge run could not start: " + report + " (not retried)");
    return;
  }
  CampaignProbe p;
  try {
    p = decode_probes(as_owner(owner->account, [&] { return encode_probes({probe_campaign(spool_, c)}); })).at(0);
  } catch (const std::exception& e) {
    p.problem = e.what();
  }
  if (p.state.cancelled || p.state.failed) {
    slot.finished = true;
    log_.info(c.key(), "kforge run " + how +
                           (p.state.cancelled ? " after the cancel; the campaign stays cancelled"
                                              : "; FAILED is there: not restarted"));
    return;
  }
  if (!p.problem.empty()) {
    mark_failed(c, owner->account, "cannot read the campaign directory: " + p.problem);
    return;
  }
  const bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (exited_ok && p.state.done()) {
    slot.failures = 0;
    slot.finished = true;
    log_.info(c.key(), "done: " + std::to_string(p.state.generations_done) + " generations in " +
                           spool_.campaign(c).index_file().string());
    return;
  }
  std::string reason = "kforge run " + how;
  if (exited_ok) {
    reason += " with " + std::to_string(p.state.generations_done) + "/" + std::to_string(p.state.generations_planned) +
              " generations";
  }
  const std::string last = report.empty() ? p.last_log_line : report;
  if (!last.empty()) reason += ": " + last;
  on_child_failure(c, owner->account, slot, status, reason, p.state);
}

void Supervisor::on_child_failure(const CampaignRef& c, const Account& owner, Slot& slot, int status,
                                  std::string reason, const StoredState& state) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
    mark_failed(c, owner, reason + " (an invalid configuration: not retried)");
    return;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {  // docs/cli.md: a generation failed for infrastructure
    mark_failed(c, owner,
                reason + " (a whole generation failed for infrastructure reasons: not retried until re-submitted)");
    return;
  }
  if (state.generations_done > slot.generations_at_start) slot.failures = 0;  // it made progress: a fresh budget
  if (++slot.failures > options_.max_restarts) {
    mark_failed(c, owner, reason + " (" + std::to_string(slot.failures) + " failures in a row)");
    return;
  }
  const milliseconds backoff = backoff_after(slot.failures);
  slot.not_before = Clock::now() + backoff;
  log_.warning(c.key(), reason + "; restart " + std::to_string(slot.failures) + "/" +
                            std::to_string(options_.max_restarts) + " in " +
                            std::to_string(backoff.count() / 1000.0).substr(0, 4) + " s (log " +
                            spool_.child_log(c).string() + ")");
}

void Supervisor::mark_failed(const CampaignRef& c, const Account& owner, const std::string& reason) {
  failed_during_run_ = true;
  Slot& slot = slots_[c];
  slot.finished = true;  // in memory first: a folder that cannot take FAILED is not restarted in a loop
  log_.error(c.key(), "failed: " + reason + "; `kforge submit` the same campaign file again to retry");
  try {
    as_owner(owner, [&] {
      require_real_directory(spool_.campaign(c).root());  // never written through a symlinked folder
      jobs::write_text_file_atomically(spool_.failed_marker(c), reason + "\n");
      return std::string();
    });
  } catch (const std::exception& e) {
    log_.error(c.key(), std::string("could not record the failure in FAILED (") + e.what() +
                            "); it is not run again until it is submitted again or kforged restarts");
  }
}

milliseconds Supervisor::backoff_after(int failures) const {
  const int doublings = std::clamp(failures - 1, 0, 16);
  return std::min(options_.max_backoff, options_.first_backoff * (1 << doublings));
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
    take_child_report(slot.report_fd);
    slot.report_fd = -1;
  }
}

milliseconds Supervisor::next_wakeup() const {
  if (more_requests_) return milliseconds(10);
  milliseconds wait = options_.poll;
  const auto now = Clock::now();
  for (const auto& [name, slot] : slots_) {
    if (slot.pid > 0 || slot.not_before <= now) continue;
    wait = std::min(wait, std::chrono::duration_cast<milliseconds>(slot.not_before - now) + milliseconds(1));
  }
  return std::max(wait, milliseconds(10));
}

}  // namespace kforge::scheduler::daemon
