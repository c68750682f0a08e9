#include "kforge/scheduler/daemon/campaign_probe.hpp"

#include <algorithm>

#include "fields.hpp"
#include "kforge/jobs/candidate.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/daemon/user_file.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxMarkerBytes = 64 << 10;  // FAILED holds one reason
constexpr std::size_t kMaxPathBytes = 4096;        // campaign.origin holds one path

// The stored campaign, parsed as `kforge run` parses it (relative paths next to campaign.origin's file): the user's
// paths are checked by the user's helper, so they tell nobody anything the user could not learn.
CampaignConfig stored_campaign(const CampaignDir& dir, const std::string& text) {
  const std::optional<std::string> origin = read_user_file_if_present(dir.campaign_origin(), kMaxPathBytes);
  return parse_campaign(text, origin ? fs::path(*origin) : dir.campaign_config());
}

}  // namespace

CampaignProbe probe_campaign(const Spool& spool, const CampaignRef& c) {
  CampaignProbe p;
  p.name = c.name;
  const CampaignDir dir = spool.campaign(c);
  try {
    if (!present(dir.root())) return p;
    p.campaign = true;  // from here on, whatever fails is reported as this campaign's problem
    require_real_directory(dir.root());
    const std::optional<std::string> text = read_user_file_if_present(dir.campaign_config());
    if (!text) {
      p.campaign = false;  // a folder without campaign.yaml is not a campaign
      return p;
    }
    p.config_digest = jobs::sha256_hex(*text);
    p.state.cancelled = present(spool.cancelled_marker(c));
    p.state.failed = present(spool.failed_marker(c));
    if (p.state.failed) {
      try {
        p.state.failure_reason = read_user_file(spool.failed_marker(c), kMaxMarkerBytes);
      } catch (const UserFileError& e) {
        p.state.failure_reason = e.what();  // failed all the same: the marker is there
      }
      while (!p.state.failure_reason.empty() && p.state.failure_reason.back() == '\n') {
        p.state.failure_reason.pop_back();
      }
    }
    p.last_log_line = last_line_of_user_file(spool.child_log(c));
    p.state.generations_planned = stored_campaign(dir, *text).search.generations;
    p.state.generations_done = dir.completed_generations();
    p.driver_pid = campaign_driver_pid(dir);
  } catch (const std::exception& e) {
    p.problem = e.what();
  }
  return p;
}

std::vector<CampaignProbe> probe_user_folder(const Spool& spool, const std::string& owner,
                                             const std::set<std::string>& skip) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(spool.user_dir(owner), ec)) {
    std::string name = entry.path().filename().string();
    if (is_valid_campaign_name(name) && !skip.count(name)) names.push_back(std::move(name));
  }
  if (ec) throw std::runtime_error(spool.user_dir(owner).string() + ": cannot list: " + ec.message());
  std::sort(names.begin(), names.end());
  if (names.size() > kMaxCampaignsPerUser) names.resize(kMaxCampaignsPerUser);
  std::vector<CampaignProbe> out;
  for (const std::string& name : names) {
    CampaignProbe p = probe_campaign(spool, CampaignRef{owner, name});
    if (p.campaign) out.push_back(std::move(p));
  }
  return out;
}

std::string encode_probes(const std::vector<CampaignProbe>& probes) {
  fields::FieldWriter w;
  w.number("count", static_cast<long long>(probes.size()));
  for (const CampaignProbe& p : probes) {
    w.blob("name", p.name).number("campaign", p.campaign).blob("problem", p.problem).blob("digest", p.config_digest);
    w.number("done", p.state.generations_done).number("planned", p.state.generations_planned);
    w.number("cancelled", p.state.cancelled).number("failed", p.state.failed).blob("reason", p.state.failure_reason);
    w.number("driver", p.driver_pid).blob("last_line", p.last_log_line);
  }
  return w.text();
}

std::vector<CampaignProbe> decode_probes(const std::string& text) {
  fields::FieldReader r(text, "the answer of a campaign probe");
  const long long count = r.number("count");
  if (count < 0 || count > static_cast<long long>(kMaxCampaignsPerUser)) r.fail("a count out of range");
  std::vector<CampaignProbe> out(static_cast<std::size_t>(count));
  for (CampaignProbe& p : out) {
    p.name = r.blob("name");
    p.campaign = r.number("campaign") != 0;
    p.problem = r.blob("problem");
    p.config_digest = r.blob("digest");
    p.state.generations_done = static_cast<int>(r.number("done"));
    p.state.generations_planned = static_cast<int>(r.number("planned"));
    p.state.cancelled = r.number("cancelled") != 0;
    p.state.failed = r.number("failed") != 0;
    p.state.failure_reason = r.blob("reason");
    p.driver_pid = r.number("driver");
    p.last_log_line = r.blob("last_line");
  }
  return out;
}

}  // namespace kforge::scheduler::daemon
