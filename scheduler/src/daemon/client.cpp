#include "kforge/scheduler/daemon/client.hpp"

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/daemon/request.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

// Submit requests still waiting for the daemon, by campaign name (a file the daemon removes meanwhile is skipped).
std::vector<Request> pending_submits(const Spool& spool) {
  std::vector<Request> out;
  for (const fs::path& file : pending_requests(spool)) {
    try {
      Request r = decode_request(jobs::read_text_file(file), file);
      if (r.kind == RequestKind::submit) out.push_back(std::move(r));
    } catch (const std::exception&) {
      // gone (processed meanwhile) or malformed (the daemon reports it): neither is a pending submit
    }
  }
  return out;
}

}  // namespace

void submit_campaign(const Spool& spool, const CampaignConfig& campaign, const SiteConfig& site) {
  if (!is_valid_campaign_name(campaign.name)) {
    throw RequestRefused("campaign name '" + campaign.name + "' cannot name a spool folder (letters, digits, . _ -)");
  }
  const CampaignDir dir = spool.campaign(campaign.name);
  if (fs::exists(dir.campaign_config()) && jobs::read_text_file(dir.campaign_config()) != campaign.text) {
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
  write_request(spool, Request{RequestKind::submit, campaign.name, campaign.text, site.text});
}

void cancel_campaign(const Spool& spool, const std::string& name) {
  if (!is_valid_campaign_name(name)) throw RequestRefused("'" + name + "' is not a campaign name");
  bool known = fs::exists(spool.campaign(name).campaign_config());
  for (const Request& r : pending_submits(spool)) known = known || r.name == name;
  if (!known) throw RequestRefused("no campaign '" + name + "' in " + spool.root().string() + " (see `kforge status`)");
  write_request(spool, Request{RequestKind::cancel, name, "", ""});
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
