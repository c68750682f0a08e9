// kforged's look at the campaign folders: which campaigns have work, which may run, which are due to start. Each
// user's folder is examined by a helper that is that user (as_user.hpp), at most once per poll.
#include <sys/stat.h>

#include <algorithm>

#include "kforge/scheduler/daemon/as_user.hpp"
#include "kforge/scheduler/daemon/campaign_probe.hpp"
#include "kforge/scheduler/daemon/supervisor.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

Supervisor::Owner* Supervisor::owner_of(const std::string& name) {
  if (auto it = owners_.find(name); it != owners_.end()) return &it->second;
  if (bad_owners_.count(name)) return nullptr;
  std::string why;
  try {
    Account a = account_by_name(name);
    struct stat st {};
    const fs::path dir = spool_.user_dir(name);  // campaigns/ is the daemon's: this entry is not the user's to swap
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      why = dir.string() + " is not a directory";
    } else if (st.st_uid != a.uid) {
      why = dir.string() + " belongs to uid " + std::to_string(st.st_uid) + ", not to " + describe(a);
    } else if (!options_.policy.multi_user && a.uid != self_.uid) {
      why = "single-user mode: this kforged runs as " + describe(self_);
    } else if (options_.policy.multi_user && a.uid == 0) {
      why = "campaigns never run as root";
    } else {
      return &(owners_[name] = Owner{std::move(a), {}, 0});
    }
  } catch (const std::exception& e) {
    why = e.what();
  }
  log_.error(name + "/*", "campaigns of '" + name + "' are not run: " + why);
  bad_owners_[name] = why;
  return nullptr;
}

int Supervisor::start_due_campaigns() {
  const auto now = Clock::now();
  for (const std::string& name : spool_.owners()) {
    Owner* owner = owner_of(name);
    if (owner && now >= owner->next_look) look_at(name, *owner, now);
  }
  int with_work = 0;
  for (const auto& [c, slot] : slots_) with_work += slot.pid > 0 || (slot.known && !slot.finished);
  return with_work;
}

void Supervisor::look_at(const std::string& name, Owner& owner, Clock::time_point now) {
  // Campaigns with a child, known to be finished, or waiting out a backoff need no look this time.
  std::set<std::string> skip;
  for (const auto& [c, slot] : slots_) {
    if (c.owner == name && (slot.pid > 0 || slot.finished || now < slot.not_before)) skip.insert(c.name);
  }
  std::vector<CampaignProbe> probes;
  try {
    probes =
        decode_probes(as_owner(owner.account, [&] { return encode_probes(probe_user_folder(spool_, name, skip)); }));
  } catch (const std::exception& e) {
    // The folder itself cannot be examined (a helper that hangs in it, ...): that user's campaigns wait, with a
    // growing pause, and nobody else's do.
    const std::chrono::milliseconds pause = backoff_after(++owner.look_failures);
    owner.next_look = now + pause;
    log_.error(name + "/*", "cannot examine the campaign folders of " + describe(owner.account) + ": " + e.what() +
                                "; next look in " + std::to_string(pause.count() / 1000) + " s");
    return;
  }
  owner.look_failures = 0;
  std::set<std::string> seen;
  for (const CampaignProbe& p : probes) {
    seen.insert(p.name);
    consider(CampaignRef{name, p.name}, owner.account, p, now);
  }
  for (auto& [c, slot] : slots_) {  // a folder that is gone (removed by its user) has no work left
    if (c.owner == name && !skip.count(c.name) && !seen.count(c.name) && slot.pid <= 0) slot.known = false;
  }
  owner.next_look = next_look_at(name, now);
}

Supervisor::Clock::time_point Supervisor::next_look_at(const std::string& name, Clock::time_point now) const {
  Clock::time_point next = now + options_.idle_look;
  for (const auto& [c, slot] : slots_) {
    if (c.owner != name || slot.pid > 0 || !slot.known || slot.finished) continue;
    next = std::min(next, std::max(now + options_.poll, slot.not_before));
  }
  return next;
}

void Supervisor::consider(const CampaignRef& c, const Account& owner, const CampaignProbe& p, Clock::time_point now) {
  Slot& slot = slots_[c];
  slot.known = true;
  if (p.state.cancelled || p.state.failed) {
    slot.finished = true;
    return;
  }
  if (!p.problem.empty()) {
    mark_failed(c, owner, "cannot read the campaign directory: " + p.problem);
    return;
  }
  if (p.state.done()) {
    slot.finished = true;
    return;
  }
  // Only what the daemon accepted runs (accepted.hpp): no folder made, and no campaign.yaml rewritten, by hand.
  if (const std::string accepted = accepted_.digest(c); accepted != p.config_digest) {
    mark_failed(c, owner,
                accepted.empty() ? "never run: no accepted request made this campaign folder (a campaign folder "
                                   "made by hand is never run); `kforge submit` its campaign file to run it"
                                 : "never run: its campaign.yaml was changed by hand after kforged accepted it; "
                                   "`kforge submit` the campaign file to run it");
    return;
  }
  if (now < slot.not_before) return;
  // A previous driver may still be stopping (a killed daemon's child finishing its SIGTERM), or a person runs
  // `kforge run` on the folder: wait for the lock instead of starting a child that would fail on it.
  if (p.driver_pid != 0) {
    if (!slot.waiting) {
      log_.info(c.key(), "waiting: another process (pid " + std::to_string(p.driver_pid) + ") drives it");
    }
    slot.waiting = true;
    return;
  }
  slot.waiting = false;
  start(c, owner, slot, p.state);
}

}  // namespace kforge::scheduler::daemon
