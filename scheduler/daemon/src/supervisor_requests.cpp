// kforged's side of submit and cancel requests (docs/daemon.md, "Who runs what"). Who asks is the request file's
// owner (request.hpp); what a request does to a campaign folder is done by a helper that is the campaign's owner.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/config/campaign_change.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/daemon/campaign_probe.hpp"
#include "kforge/scheduler/daemon/supervisor.hpp"
#include "kforge/scheduler/daemon/user_file.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSelf = "kforged";
constexpr int kMaxRequestsPerRound = 64;  // then children are reaped and started before the next batch

// Removes a handled request; "" when it is gone, else why not (a folder named *.req with files in it).
std::string remove_request(const fs::path& file) {
  if (::unlink(file.c_str()) == 0 || errno == ENOENT) return "";
  if ((errno == EISDIR || errno == EPERM) && ::rmdir(file.c_str()) == 0) return "";
  return std::strerror(errno);
}

// In the owner's helper: validates the submitted texts as the owner (so the paths they name, such as
// evaluation.replay_cache and search.prior, are checked with the owner's rights and tell nobody anything the owner
// could not learn) and writes or updates the campaign folder. Returns "new", "extended", "same", or "refused\n"
// followed by why; throws on invalid configs.
std::string write_submitted_campaign(const Spool& spool, const CampaignRef& c, const Request& r) {
  const CampaignConfig campaign = parse_campaign(r.campaign_text, "<submitted campaign.yaml of " + r.name + ">");
  parse_site(r.site_text, "<submitted site.yaml of " + r.name + ">");
  if (campaign.name != r.name) {
    throw std::runtime_error("the request names '" + r.name + "' but its campaign.yaml names '" + campaign.name + "'");
  }
  const CampaignDir dir = spool.campaign(c);
  if (present(dir.root())) require_real_directory(dir.root());
  std::string outcome = "new";
  if (const std::optional<std::string> stored = read_user_file_if_present(dir.campaign_config())) {
    // The same rule as `kforge run` on an existing directory: only search.generations may change (extending).
    try {
      const bool changed =
          accept_campaign_change(*stored, r.campaign_text, dir.completed_generations(), dir.root().string());
      if (changed) jobs::write_text_file_atomically(dir.campaign_config(), r.campaign_text);
      outcome = changed ? "extended" : "same";
    } catch (const CampaignChangeRefused& e) {
      return std::string("refused\n") + e.what();
    }
    jobs::write_text_file_atomically(dir.site_config(), r.site_text);  // used from the child's next start on
    for (const fs::path& marker : {spool.cancelled_marker(c), spool.failed_marker(c)}) {
      if (::unlink(marker.c_str()) != 0 && errno != ENOENT) {
        throw std::runtime_error(marker.string() + ": cannot remove: " + std::strerror(errno));
      }
    }
    return outcome;
  }
  fs::create_directories(dir.root());
  jobs::write_text_file_atomically(dir.site_config(), r.site_text);
  jobs::write_text_file_atomically(dir.campaign_config(), r.campaign_text);  // last: its presence makes a campaign
  return outcome;
}

}  // namespace

void Supervisor::handle_requests() {
  more_requests_ = false;
  int handled = 0;
  std::set<std::string> listed;
  for (const fs::path& file : pending_requests(spool_)) {
    const std::string name = file.filename().string();
    listed.insert(name);
    if (undeletable_requests_.count(name) || more_requests_) continue;
    if (++handled > kMaxRequestsPerRound) {
      more_requests_ = true;
      continue;
    }
    try {
      handle(receive_request(file));
    } catch (const std::exception& e) {
      log_.error(kSelf, "request " + name + " dropped: " + e.what());
      audit_->record("request", static_cast<uid_t>(-1), "", "-", std::string("dropped: ") + e.what());
    }
    // Only now: a daemon killed before this line acts on the request again, harmlessly.
    if (const std::string why = remove_request(file); !why.empty()) {
      undeletable_requests_.insert(name);
      log_.error(kSelf,
                 "request " + name + " cannot be removed (" + why + "); it is ignored from now on: remove it by hand");
    }
  }
  std::erase_if(undeletable_requests_, [&](const std::string& n) { return !listed.count(n); });
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
  spool_.create_user_dir(c.owner, owner.uid, owner.gid, options_.policy);
  owners_[c.owner] = Owner{owner, {}, 0};
  bad_owners_.erase(c.owner);
  const std::string outcome = as_owner(owner, [&] { return write_submitted_campaign(spool_, c, r); });
  if (outcome.rfind("refused\n", 0) == 0) {
    log_.error(c.key(), "submit refused: " + outcome.substr(8));
    audit_->record("submit", owner.uid, owner.name, c.key(), "refused: the campaign file changed other keys");
    return;
  }
  accepted_.record(c, r.campaign_text);  // from now on this text, and only this text, runs in that folder
  Slot& slot = slots_[c];
  const bool was_finished = slot.finished;
  slot.failures = 0;
  slot.not_before = {};
  slot.finished = false;
  owners_[c.owner].next_look = {};  // look at the folder in this round
  if (outcome == "new") {
    log_.info(c.key(), "submitted by " + describe(owner) + " in " + spool_.campaign(c).root().string());
    audit_->record("submit", owner.uid, owner.name, c.key(), "accepted");
    return;
  }
  if (outcome == "extended") log_.info(c.key(), "campaign.yaml updated (extended)");
  log_.info(c.key(),
            was_finished ? "re-submitted: resuming the campaign" : "re-submitted: already known, site.yaml updated");
  audit_->record("submit", owner.uid, owner.name, c.key(), "accepted (re-submit)");
}

void Supervisor::handle_cancel(const CampaignRef& c, const Account& by) {
  const Owner* owner = owner_of(c.owner);
  // As the owner: whether there is such a campaign, whether it is done, and CANCELLED written into its folder.
  const std::string outcome = !owner ? "missing" : as_owner(owner->account, [&] {
    const CampaignProbe p = probe_campaign(spool_, c);
    if (!p.campaign) return std::string("missing");
    if (p.problem.empty() && p.state.done()) return std::string("done");
    if (!p.state.cancelled) {
      require_real_directory(spool_.campaign(c).root());
      jobs::write_text_file_atomically(spool_.cancelled_marker(c),
                                       "cancelled " + jobs::iso8601_now() + " by " + by.name + "\n");
    }
    return std::string("cancelled");
  });
  if (outcome != "cancelled") {
    const bool missing = outcome == "missing";
    log_.warning(c.key(), "cancel by " + describe(by) + " ignored: " +
                              (missing ? "no such campaign in " + spool_.user_dir(c.owner).string()
                                       : std::string("the campaign is already done")));
    audit_->record("cancel", by.uid, by.name, c.key(), missing ? "ignored: no such campaign" : "ignored: already done");
    return;
  }
  // CANCELLED first, then SIGTERM: the child (and an executor's cleanup) sees the marker when the signal arrives,
  // and a daemon killed in between never restarts the campaign.
  audit_->record("cancel", by.uid, by.name, c.key(), "accepted");
  Slot& slot = slots_[c];
  slot.finished = true;
  if (slot.pid > 0 && !slot.cancelling) {
    ::kill(slot.pid, SIGTERM);
    slot.cancelling = true;
    log_.info(c.key(),
              "cancelled by " + describe(by) + ": SIGTERM sent to kforge run (pid " + std::to_string(slot.pid) + ")");
  } else {
    log_.info(c.key(), "cancelled by " + describe(by));
  }
}

}  // namespace kforge::scheduler::daemon
