#include "kforge/scheduler/daemon/client.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "kforge/scheduler/daemon/request.hpp"
#include "kforge/scheduler/daemon/user_file.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

// The caller's submit requests still waiting for the daemon (a file removed meanwhile is skipped). Empty where
// requests/ cannot be listed (mode 1733 of a multi-user spool: the daemon picks requests up within a second).
std::vector<Request> pending_submits(const Spool& spool) {
  std::vector<Request> out;
  for (const fs::path& file : pending_requests(spool)) {
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    try {
      Request r = decode_request(read_user_file(file, 4 << 20), file);
      if (r.kind == RequestKind::submit) out.push_back(std::move(r));
    } catch (const std::exception&) {
      // gone (processed meanwhile) or malformed (the daemon reports it): neither is a pending submit
    }
  }
  return out;
}

// A request the spool cannot take (no such spool, no permission) was not written: refused, exit 2.
void write_or_refuse(const Spool& spool, const Request& r) {
  try {
    write_request(spool, r);
  } catch (const std::runtime_error& e) {
    throw RequestRefused(e.what());
  }
}

}  // namespace

std::string current_user_name() {
  if (const passwd* pw = ::getpwuid(::geteuid())) return pw->pw_name;
  throw std::runtime_error("uid " + std::to_string(::geteuid()) + " has no account name (getpwuid)");
}

CampaignVisibility campaign_visibility(const Spool& spool, const CampaignRef& c) {
  struct stat st {};
  if (::stat(spool.campaign(c).campaign_config().c_str(), &st) == 0) return CampaignVisibility::visible;
  if (errno == EACCES) return CampaignVisibility::forbidden;
  return CampaignVisibility::missing;
}

std::string not_visible_message(const Spool& spool, const CampaignRef& c) {
  return "permission denied: campaign '" + c.name + "' of user " + c.owner + " (in " +
         spool.user_dir(c.owner).string() + ") is visible only to " + c.owner +
         ", root and the kforged admin group; nothing was done";
}

void submit_campaign(const Spool& spool, const CampaignConfig& campaign, const SiteConfig& site) {
  if (!is_valid_campaign_name(campaign.name)) {
    throw RequestRefused("campaign name '" + campaign.name + "' cannot name a spool folder (letters, digits, . _ -)");
  }
  if (::geteuid() == 0) {
    throw RequestRefused(
        "campaigns never run as root: submit as the user the campaign should run as (a kforged "
        "started by root runs each campaign as its submitter; docs/daemon.md)");
  }
  const CampaignRef c{current_user_name(), campaign.name};
  const CampaignDir dir = spool.campaign(c);
  if (campaign_visibility(spool, c) == CampaignVisibility::visible &&
      read_user_file(dir.campaign_config()) != campaign.text) {
    throw RequestRefused(dir.root().string() + " already holds a different campaign named '" + campaign.name +
                         "'; give this one another campaign.name (results of two campaigns never mix)");
  }
  for (const Request& r : pending_submits(spool)) {
    if (r.name == campaign.name && r.campaign_text != campaign.text) {
      throw RequestRefused("a pending submit in " + spool.requests_dir().string() +
                           " already names a different campaign '" + campaign.name +
                           "'; give this one another campaign.name");
    }
  }
  write_or_refuse(spool, Request{RequestKind::submit, campaign.name, "", campaign.text, site.text});
}

void cancel_campaign(const Spool& spool, const std::string& name, const std::string& owner) {
  if (!is_valid_campaign_name(name)) throw RequestRefused("'" + name + "' is not a campaign name");
  if (!owner.empty() && !is_valid_campaign_name(owner)) throw RequestRefused("'" + owner + "' is not a user name");
  const std::string me = current_user_name();
  const CampaignRef c{owner.empty() ? me : owner, name};
  const CampaignVisibility v = campaign_visibility(spool, c);
  if (v == CampaignVisibility::forbidden) throw RequestRefused(not_visible_message(spool, c));
  bool known = v == CampaignVisibility::visible;
  if (c.owner == me) {
    for (const Request& r : pending_submits(spool)) known = known || r.name == name;
  }
  if (!known) {
    throw RequestRefused("no campaign '" + name + "' of user " + c.owner + " in " + spool.root().string() +
                         " (see `kforge status`)");
  }
  write_or_refuse(spool, Request{RequestKind::cancel, name, c.owner == me ? "" : c.owner, "", ""});
}

const char* to_string(CampaignState s) {
  switch (s) {
    case CampaignState::queued:
      return "queued";
    case CampaignState::running:
      return "running";
    case CampaignState::done:
      return "done";
    case CampaignState::cancelled:
      return "cancelled";
    case CampaignState::failed:
      return "failed";
  }
  return "unknown";
}

}  // namespace kforge::scheduler::daemon
