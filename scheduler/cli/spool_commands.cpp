// The commands that hand work to the kforged daemon through its spool (docs/daemon.md): submit, cancel (of a
// campaign the daemon drives, or of a campaign directory), and the spool's side of status.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "command_table.hpp"
#include "kforge/scheduler/daemon/client.hpp"
#include "kforge/scheduler/driver/campaign_validation.hpp"
#include "kforge/scheduler/driver/cancel_dir.hpp"

namespace kforge::cli {
namespace ks = kforge::scheduler;
namespace kd = kforge::scheduler::daemon;
namespace fs = std::filesystem;

namespace {

constexpr const char* kSpoolHelp = "spool directory (default: $KFORGE_SPOOL, else /var/lib/kforge)";

void submit_options(po::options_description& options) {
  options.add_options()("campaign", po::value<std::string>()->required(), "campaign YAML")(
      "site", po::value<std::string>(), "site YAML (default: the embedded local site)")(
      "spool", po::value<std::string>(), kSpoolHelp);
}

int submit(const po::variables_map& options) {
  const ks::CampaignConfig campaign = ks::load_campaign(options["campaign"].as<std::string>());
  const ks::SiteConfig site = site_from(options);
  ks::validate_campaign(campaign, site);  // as kforge run does, before the spool is written
  const kd::Spool spool = spool_from(options);
  kd::submit_campaign(spool, campaign, site);
  std::cout << campaign.name << "\n";
  if (!spool.daemon_is_running()) {
    std::cerr << "kforge submit: no kforged is watching " << spool.root().string()
              << " yet; the campaign starts when one does\n";
  }
  return 0;
}

void cancel_options(po::options_description& options) {
  options.add_options()("name", po::value<std::string>()->required(),
                        "campaign directory, or the name of a campaign the daemon drives")(
      "spool", po::value<std::string>(), kSpoolHelp)("owner", po::value<std::string>(),
                                                     "with NAME: the campaign of this user (root and the admin group)");
}

int cancel(const po::variables_map& options) {
  const std::string name = options["name"].as<std::string>();
  if (fs::is_directory(name) && fs::exists(ks::CampaignDir(name).campaign_config())) {
    ks::cancel_campaign_dir(ks::CampaignDir(name), std::cout);
    return 0;
  }
  kd::cancel_campaign(spool_from(options), name, string_or_empty(options, "owner"));
  return 0;
}

}  // namespace

int spool_status(const kd::Spool& spool, bool json, const std::string& name, const std::string& owner) {
  const auto entries = name.empty() ? kd::read_spool_status(spool)
                                    : std::vector<kd::SpoolEntry>{kd::read_campaign_status(spool, name, owner)};
  if (json) {
    kd::write_spool_json(std::cout, spool, entries);
    return 0;
  }
  kd::write_spool_table(std::cout, entries);
  if (!spool.daemon_is_running())
    std::cerr << "kforge status: no kforged is watching " << spool.root().string() << "\n";
  return 0;
}

const Command kSubmitCommand{"submit",
                             "CAMPAIGN.yaml [--site SITE.yaml] [--spool S]",
                             "hand a campaign to the kforged daemon",
                             "kforge submit CAMPAIGN.yaml",
                             "campaign",
                             submit_options,
                             submit};
const Command kCancelCommand{"cancel",
                             "DIR|NAME [--spool S] [--owner U]",
                             "stop a campaign: its directory, or one the daemon drives",
                             "kforge cancel DIR|NAME",
                             "name",
                             cancel_options,
                             cancel};

}  // namespace kforge::cli
