#include "kforge/scheduler/daemon/supervisor.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <csignal>

#include "kforge/jobs/record.hpp"
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
    : options_(std::move(options)), spool_(options_.spool), log_(log) {}

int Supervisor::run() {
  SignalWait signals(spool_.requests_dir());
  log_.info(kSelf, "watching " + spool_.root().string() + " (child: " + options_.kforge_binary.string() + " run" +
                       (options_.once ? "; --once: exits when every campaign has ended)" : ")"));
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
      const Request r = decode_request(jobs::read_text_file(file), file);
      r.kind == RequestKind::submit ? handle_submit(r) : handle_cancel(r);
    } catch (const std::exception& e) {
      log_.error(kSelf, "request " + file.filename().string() + " dropped: " + e.what());
    }
    remove_file(file);  // only now: a daemon killed before this line acts on the request again, harmlessly
  }
}

void Supervisor::handle_submit(const Request& r) {
  // `kforge submit` validated both texts; a hand-written request gets the same checks here.
  const CampaignConfig campaign = parse_campaign(r.campaign_text, "<submitted campaign.yaml of " + r.name + ">");
  parse_site(r.site_text, "<submitted site.yaml of " + r.name + ">");
  if (campaign.name != r.name) {
    throw std::runtime_error("the request names '" + r.name + "' but its campaign.yaml names '" + campaign.name + "'");
  }
  const CampaignDir dir = spool_.campaign(r.name);
  if (fs::exists(dir.campaign_config())) {
    if (jobs::read_text_file(dir.campaign_config()) != r.campaign_text) {
      log_.error(r.name, "submit refused: " + dir.root().string() + " holds a different campaign of that name");
      return;
    }
    jobs::write_text_file_atomically(dir.site_config(), r.site_text);  // used from the child's next start on
    const bool cancelled = remove_file(spool_.cancelled_marker(r.name));
    const bool failed = remove_file(spool_.failed_marker(r.name));
    slots_[r.name].failures = 0;
    slots_[r.name].not_before = {};
    log_.info(r.name, cancelled || failed ? "re-submitted: resuming the " +
                                                std::string(cancelled ? "cancelled" : "failed") + " campaign"
                                          : "re-submitted: already known, site.yaml updated");
    return;
  }
  fs::create_directories(dir.root());
  jobs::write_text_file_atomically(dir.site_config(), r.site_text);
  jobs::write_text_file_atomically(dir.campaign_config(), r.campaign_text);  // last: its presence makes a campaign
  log_.info(r.name,
            "submitted: " + std::to_string(campaign.search.generations) + " generations, in " + dir.root().string());
}

void Supervisor::handle_cancel(const Request& r) {
  if (!fs::exists(spool_.campaign(r.name).campaign_config())) {
    log_.warning(r.name, "cancel ignored: no such campaign in " + spool_.campaigns_dir().string());
    return;
  }
  const StoredState state = read_stored_state(spool_, r.name);
  if (state.done()) {
    log_.info(r.name, "cancel ignored: the campaign is already done");
    return;
  }
  // CANCELLED first, then SIGTERM: the child (and an executor's cleanup) sees the marker when the signal arrives,
  // and a daemon killed in between never restarts the campaign.
  if (!state.cancelled)
    jobs::write_text_file_atomically(spool_.cancelled_marker(r.name), "cancelled " + jobs::iso8601_now() + "\n");
  Slot& slot = slots_[r.name];
  if (slot.pid > 0 && !slot.cancelling) {
    ::kill(slot.pid, SIGTERM);
    slot.cancelling = true;
    log_.info(r.name, "cancelled: SIGTERM sent to kforge run (pid " + std::to_string(slot.pid) + ")");
  } else {
    log_.info(r.name, "cancelled");
  }
}

int Supervisor::start_due_campaigns() {
  int with_work = 0;
  const auto now = Clock::now();
  for (const std::string& name : spool_.campaign_names()) {
    Slot& slot = slots_[name];
    if (slot.pid > 0) {
      ++with_work;
      continue;
    }
    if (fs::exists(spool_.cancelled_marker(name)) || fs::exists(spool_.failed_marker(name))) continue;
    StoredState state;
    try {
      state = read_stored_state(spool_, name);
    } catch (const std::exception& e) {
      mark_failed(name, std::string("cannot read the campaign directory: ") + e.what());
      continue;
    }
    if (state.done()) continue;
    ++with_work;
    if (now < slot.not_before) continue;
    // A previous driver may still be stopping (a killed daemon's child finishing its SIGTERM), or a person runs
    // `kforge run` on the folder: wait for the lock instead of starting a child that would fail on it.
    if (const long holder = campaign_driver_pid(spool_.campaign(name)); holder != 0) {
      if (!slot.waiting) log_.info(name, "waiting: another process (pid " + std::to_string(holder) + ") drives it");
      slot.waiting = true;
      continue;
    }
    slot.waiting = false;
    start(name, slot, state);
  }
  return with_work;
}

void Supervisor::start(const std::string& name, Slot& slot, const StoredState& state) {
  try {
    const CampaignDir dir = spool_.campaign(name);
    slot.pid = spawn_child(kforge_run_command(options_.kforge_binary, dir.root()), spool_.child_log(name));
    slot.cancelling = false;
    slot.generations_at_start = state.generations_done;
    log_.info(name, "started kforge run (pid " + std::to_string(slot.pid) + ") at generation " +
                        std::to_string(state.generations_done) + "/" + std::to_string(state.generations_planned) +
                        "; log " + spool_.child_log(name).string());
  } catch (const std::exception& e) {
    ++slot.failures;
    slot.not_before = Clock::now() + options_.max_backoff;
    log_.error(name, std::string("could not start kforge run: ") + e.what());
  }
}

void Supervisor::reap_children() {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (auto& [name, slot] : slots_) {
      if (slot.pid != pid) continue;
      slot.pid = -1;
      on_child_end(name, slot, status);
      break;
    }
  }
}

void Supervisor::on_child_end(const std::string& name, Slot& slot, int status) {
  const std::string how = describe_wait_status(status);
  if (slot.cancelling || fs::exists(spool_.cancelled_marker(name))) {
    slot.cancelling = false;
    log_.info(name, "kforge run " + how + " after the cancel; the campaign stays cancelled");
    return;
  }
  if (stopping_) {
    log_.info(name, "kforge run " + how + "; a restarted kforged resumes the campaign");
    return;
  }
  StoredState state;
  try {
    state = read_stored_state(spool_, name);
  } catch (const std::exception& e) {
    mark_failed(name, std::string("cannot read the campaign directory: ") + e.what());
    return;
  }
  const bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (exited_ok && state.done()) {
    slot.failures = 0;
    log_.info(name, "done: " + std::to_string(state.generations_done) + " generations in " +
                        spool_.campaign(name).index_file().string());
    return;
  }
  std::string reason = "kforge run " + how;
  if (exited_ok)
    reason += " with " + std::to_string(state.generations_done) + "/" + std::to_string(state.generations_planned) +
              " generations";
  if (const std::string last = last_line_of(spool_.child_log(name)); !last.empty()) reason += ": " + last;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
    mark_failed(name, reason + " (an invalid configuration: not retried)");
    return;
  }
  if (state.generations_done > slot.generations_at_start) slot.failures = 0;  // it made progress: a fresh budget
  if (++slot.failures > options_.max_restarts) {
    mark_failed(name, reason + " (" + std::to_string(slot.failures) + " failures in a row)");
    return;
  }
  const int doublings = std::min(slot.failures - 1, 16);
  const milliseconds backoff = std::min(options_.max_backoff, options_.first_backoff * (1 << doublings));
  slot.not_before = Clock::now() + backoff;
  log_.warning(name, reason + "; restart " + std::to_string(slot.failures) + "/" +
                         std::to_string(options_.max_restarts) + " in " +
                         std::to_string(backoff.count() / 1000.0).substr(0, 4) + " s (log " +
                         spool_.child_log(name).string() + ")");
}

void Supervisor::mark_failed(const std::string& name, const std::string& reason) {
  failed_during_run_ = true;
  log_.error(name, "failed: " + reason + "; `kforge submit` the same campaign file again to retry");
  try {
    jobs::write_text_file_atomically(spool_.failed_marker(name), reason + "\n");
  } catch (const std::exception& e) {
    log_.error(name, std::string("could not record the failure: ") + e.what());
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
  for (auto& [name, slot] : slots_) {
    if (slot.pid <= 0) continue;
    log_.warning(name, "kforge run (pid " + std::to_string(slot.pid) + ") ignored SIGTERM; sending SIGKILL");
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
