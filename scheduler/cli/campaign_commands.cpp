// The commands that drive a campaign in the foreground: run, validate (the checks of run, nothing written) and
// confirm (re-timing the best candidates against the baselines).
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include "command_table.hpp"
#include "kforge/scheduler/config/campaign_change.hpp"
#include "kforge/scheduler/driver/campaign_runner.hpp"
#include "kforge/scheduler/driver/campaign_validation.hpp"
#include "kforge/scheduler/driver/cancel_dir.hpp"
#include "kforge/scheduler/executors/controller_check.hpp"
#include "kforge/scheduler/executors/slurm_conf.hpp"
#include "kforge/scheduler/executors/slurm_executor.hpp"

namespace kforge::cli {
namespace ks = kforge::scheduler;
namespace fs = std::filesystem;

namespace {

void validate_options(po::options_description& options) {
  options.add_options()("campaign", po::value<std::string>()->required(), "campaign YAML")(
      "site", po::value<std::string>(), "site YAML (default: the embedded local site)");
}

void run_options(po::options_description& options) {
  validate_options(options);
  options.add_options()("out", po::value<std::string>(), "campaign directory (default: runs/NAME)")(
      "detach-on-interrupt",
      "Ctrl-C leaves submitted Slurm arrays running (as SIGTERM does) instead of cancelling them");
}

// The family's schema, the space (constraints parse and are satisfiable) and the site, before anything is written.
int validate(const po::variables_map& options) {
  const ks::CampaignConfig campaign = ks::load_campaign(options["campaign"].as<std::string>());
  const ks::SiteConfig site = site_from(options);
  const ks::SearchSpace space = ks::validate_campaign(campaign, site);
  const std::string controller = ks::check_site_against_controller(site);  // ConfigError (exit 2) when it lacks one
  std::cout << campaign.file.string() << ": ok (" << campaign.space.parameters.size() << " parameters, up to "
            << space.cardinality() << " configurations)\n"
            << site.file.string() << ": ok (executor " << site.executor << ")\n";
  if (!controller.empty()) std::cout << site.file.string() << ": " << controller << "\n";
  return 0;
}

int run(const po::variables_map& options) {
  const ks::CampaignConfig campaign = ks::load_campaign(options["campaign"].as<std::string>());
  const ks::SiteConfig site = site_from(options);
  ks::validate_campaign(campaign, site);
  ks::require_slurm_conf(site);  // SLURM_CONF from slurm.conf, or exit 2 naming the key, before anything is written
  // Absolute: the directory is handed to Slurm (work dir, output files), which resolves paths on the node.
  const fs::path out =
      options.count("out") ? fs::path(options["out"].as<std::string>()) : fs::path("runs") / campaign.name;
  const ks::CampaignDir dir(fs::absolute(out).lexically_normal());
  fs::create_directories(dir.root());
  const ks::CampaignLock lock(dir.lock_file());
  ks::refuse_cancelled_campaign(dir);
  ks::prepare_campaign_dir(dir, campaign, site);
  auto executor = ks::make_executor(site, campaign.name, dir, ks::locate_eval_binary());
  std::cout << "kforge: campaign " << campaign.name << " in " << dir.root().string() << " (site " << site.name
            << ", executor " << executor->name() << ")" << std::endl;
  ks::install_stop_handlers(options.count("detach-on-interrupt") != 0);
  ks::CampaignRunner runner(campaign, site, dir, *executor, std::cout);
  const int done = runner.run();
  std::cout << "kforge: " << done << " generations in " << dir.index_file().string() << std::endl;
  return 0;
}

void confirm_options(po::options_description& options) {
  options.add_options()("dir", po::value<std::string>()->required(), "campaign directory")(
      "top", po::value<int>()->required(), "candidates per target (island), best first")(
      "rounds", po::value<int>()->default_value(10), "paired rounds (at least 2)");
}

// Re-times the best K candidates of each target against the baselines on the campaign's own executor and
// stores the paired speedups with their bootstrap intervals in DIR/confirmation.h5 (docs/cli.md).
int confirm(const po::variables_map& options) {
  const int top = options["top"].as<int>(), rounds = options["rounds"].as<int>();
  if (top < 1) throw Usage("--top must be at least 1");
  if (rounds < 2) throw Usage("--rounds must be at least 2 (one round says nothing about the spread)");
  const ks::CampaignDir dir(fs::absolute(options["dir"].as<std::string>()).lexically_normal());
  if (!fs::exists(dir.campaign_config()))
    throw std::runtime_error(dir.root().string() + " is not a kforge campaign directory (no campaign.yaml)");
  const ks::CampaignLock lock(dir.lock_file());
  ks::refuse_cancelled_campaign(dir);
  const ks::CampaignConfig campaign = ks::load_stored_campaign(dir);
  const ks::SiteConfig site = ks::load_site(dir.site_config());
  ks::require_slurm_conf(site);
  auto executor = ks::make_executor(site, campaign.name, dir, ks::locate_eval_binary());
  ks::install_stop_handlers();
  ks::CampaignRunner runner(campaign, site, dir, *executor, std::cout);
  runner.confirm(top, rounds);
  return 0;
}

}  // namespace

const Command kRunCommand{"run",
                          "CAMPAIGN.yaml [--site SITE.yaml] [--out DIR]",
                          "run (or resume) a campaign in the foreground",
                          "kforge run CAMPAIGN.yaml",
                          "campaign",
                          run_options,
                          run};
const Command kValidateCommand{"validate",
                               "CAMPAIGN.yaml [--site SITE.yaml]",
                               "check both configs, write nothing",
                               "kforge validate CAMPAIGN.yaml",
                               "campaign",
                               validate_options,
                               validate};
const Command kConfirmCommand{"confirm",
                              "DIR --top K [--rounds N]",
                              "re-time the best K of each target vs the baselines, with intervals",
                              "kforge confirm DIR --top K [--rounds N]",
                              "dir",
                              confirm_options,
                              confirm};

}  // namespace kforge::cli
