// kforge: the command-line interface. `kforge COMMAND --help` for each command.
//   exit 0 success, 1 runtime failure (message on stderr), 2 bad usage or invalid configuration,
//   4 `kforge verify` found a damaged archive.
#include <boost/program_options.hpp>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "kforge/jobs/exit_codes.hpp"
#include "kforge/scheduler/config/campaign_change.hpp"
#include "kforge/scheduler/daemon/client.hpp"
#include "kforge/scheduler/driver/campaign_runner.hpp"
#include "kforge/scheduler/driver/campaign_validation.hpp"
#include "kforge/scheduler/driver/cancel_dir.hpp"
#include "kforge/scheduler/driver/infra_failure.hpp"
#include "kforge/scheduler/executors/controller_check.hpp"
#include "kforge/scheduler/executors/slurm_conf.hpp"
#include "kforge/scheduler/executors/slurm_executor.hpp"
#include "kforge/scheduler/report/export.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "kforge/scheduler/report/verify.hpp"

namespace po = boost::program_options;
namespace ks = kforge::scheduler;
namespace kd = kforge::scheduler::daemon;
namespace fs = std::filesystem;

namespace {

namespace exit_code = kforge::jobs::exit_code;
int exit_code_for_stop() {
  return exit_code::stopped_by_signal(ks::requested_stop_signal() ? ks::requested_stop_signal() : SIGTERM);
}

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kTopHelp =
    "kforge " KFORGE_VERSION
    " - evolves GPU and CPU kernels\n\n"
    "usage: kforge COMMAND [options]\n\n"
    "commands:\n"
    "  run CAMPAIGN.yaml [--site SITE.yaml] [--out DIR]   run (or resume) a campaign in the foreground\n"
    "  validate CAMPAIGN.yaml [--site SITE.yaml]          check both configs, write nothing\n"
    "  status [DIR|NAME] [--json] [--spool S] [--owner U] where a campaign stands; no DIR: every campaign of the "
    "spool\n"
    "  report DIR [--json|--html FILE]                   per-generation table, best candidate, lineage\n"
    "  plot DIR [--out DIR] [--format png|svg]           pictures of the campaign, with their data as CSV/JSON\n"
    "  watch DIR [--interval S] [--once]                 live progress bars, ETA and best so far of a campaign\n"
    "  export DIR --best [--to PATH]                     the best candidate's source, parameters, evidence\n"
    "  verify DIR                                        check every archive file; exit 4 and one line per problem\n"
    "  confirm DIR --top K [--rounds N]                  re-time the best K of each target vs the baselines, with "
    "intervals\n"
    "  submit CAMPAIGN.yaml [--site SITE.yaml] [--spool S]  hand a campaign to the kforged daemon\n"
    "  cancel DIR|NAME [--spool S] [--owner U]           stop a campaign: its directory, or one the daemon drives\n\n"
    "Without --site the embedded default site (local executor, no Slurm, no GPU) is used.\n"
    "The spool defaults to $KFORGE_SPOOL, else /var/lib/kforge (docs/daemon.md).\n";

po::variables_map parse(const std::vector<std::string>& args, po::options_description& opts,
                        const po::positional_options_description& pos) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    if (vm.count("help")) return vm;  // --help needs none of the required options
    po::notify(vm);
  } catch (const po::error& e) {
    throw Usage(e.what());
  }
  return vm;
}

ks::SiteConfig site_from(const po::variables_map& vm) {
  return vm.count("site") ? ks::load_site(vm["site"].as<std::string>()) : ks::embedded_default_site();
}

int cmd_run(const std::vector<std::string>& args, bool validate_only) {
  po::options_description opts(validate_only ? "kforge validate CAMPAIGN.yaml" : "kforge run CAMPAIGN.yaml");
  opts.add_options()("help,h", "this help")("campaign", po::value<std::string>()->required(), "campaign YAML")(
      "site", po::value<std::string>(), "site YAML (default: the embedded local site)");
  if (!validate_only) {
    opts.add_options()("out", po::value<std::string>(), "campaign directory (default: runs/NAME)")(
        "detach-on-interrupt",
        "Ctrl-C leaves submitted Slurm arrays running (as SIGTERM does) instead of cancelling them");
  }
  po::positional_options_description pos;
  pos.add("campaign", 1);
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << opts;
    return 0;
  }
  auto vm = parse(args, opts, pos);
  ks::CampaignConfig campaign = ks::load_campaign(vm["campaign"].as<std::string>());
  ks::SiteConfig site = site_from(vm);
  // The family's schema, the space (constraints parse and are satisfiable) and the site, before anything is written.
  ks::SearchSpace space = ks::validate_campaign(campaign, site);
  if (validate_only) {
    const std::string controller = ks::check_site_against_controller(site);  // ConfigError (exit 2) when it lacks one
    std::cout << campaign.file.string() << ": ok (" << campaign.space.parameters.size() << " parameters, up to "
              << space.cardinality() << " configurations)\n"
              << site.file.string() << ": ok (executor " << site.executor << ")\n";
    if (!controller.empty()) std::cout << site.file.string() << ": " << controller << "\n";
    return 0;
  }
  ks::require_slurm_conf(site);  // SLURM_CONF from slurm.conf, or exit 2 naming the key, before anything is written
  // Absolute: the directory is handed to Slurm (work dir, output files), which resolves paths on the node.
  const fs::path out = vm.count("out") ? fs::path(vm["out"].as<std::string>()) : fs::path("runs") / campaign.name;
  ks::CampaignDir dir(fs::absolute(out).lexically_normal());
  fs::create_directories(dir.root());
  ks::CampaignLock lock(dir.lock_file());
  ks::refuse_cancelled_campaign(dir);
  ks::prepare_campaign_dir(dir, campaign, site);
  auto executor = ks::make_executor(site, campaign.name, dir, ks::locate_eval_binary());
  std::cout << "kforge: campaign " << campaign.name << " in " << dir.root().string() << " (site " << site.name
            << ", executor " << executor->name() << ")" << std::endl;
  ks::install_stop_handlers(vm.count("detach-on-interrupt") != 0);
  ks::CampaignRunner runner(campaign, site, dir, *executor, std::cout);
  const int done = runner.run();
  std::cout << "kforge: " << done << " generations in " << dir.index_file().string() << std::endl;
  return 0;
}

bool wants_help(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--help") != args.end() ||
         std::find(args.begin(), args.end(), "-h") != args.end();
}

kd::Spool spool_from(const po::variables_map& vm) {
  return kd::Spool(vm.count("spool") ? fs::path(vm["spool"].as<std::string>()) : kd::default_spool_path());
}

// `kforge status` without DIR: one line per campaign of the spool; with NAME (one of the caller's, or of --owner)
// the same line and the same JSON schema for that campaign alone.
int spool_status(const kd::Spool& spool, bool json, const std::string& name = "", const std::string& owner = "") {
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

int cmd_report(const std::vector<std::string>& args, bool status) {
  po::options_description opts(status ? "kforge status [DIR|NAME]" : "kforge report DIR");
  opts.add_options()("help,h", "this help")("dir", po::value<std::string>(), "campaign directory")(
      "json", "machine-readable JSON (schema in docs/cli.md)");
  if (!status)
    opts.add_options()("html", po::value<std::string>(), "write one self-contained HTML page (tables, plots)");
  if (status) {
    opts.add_options()("spool", po::value<std::string>(), "spool directory (no DIR, or NAME of a spool campaign)")(
        "owner", po::value<std::string>(), "with NAME: the campaign of this user (root and the admin group)");
  }
  po::positional_options_description pos;
  pos.add("dir", 1);
  auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  const bool json = vm.count("json") != 0;
  if (!vm.count("dir")) {
    if (!status) throw Usage("the argument ('dir') is required but missing");
    return spool_status(spool_from(vm), json);
  }
  fs::path dir = vm["dir"].as<std::string>();
  if (status && !fs::exists(dir) && kd::is_valid_campaign_name(dir.string())) {  // NAME of a spool campaign
    return spool_status(spool_from(vm), json, dir.string(), vm.count("owner") ? vm["owner"].as<std::string>() : "");
  }
  if (!status && vm.count("html")) return ks::write_report_html(ks::CampaignDir(dir), vm["html"].as<std::string>());
  ks::CampaignReport r = ks::build_report(ks::CampaignDir(dir));
  if (status && r.generations_done < r.generations_planned && fs::exists(ks::CampaignDir(dir).site_config())) {
    const ks::SiteConfig site = ks::load_site(ks::CampaignDir(dir).site_config());
    ks::use_site_slurm_conf(site);
    r.arrays = ks::slurm_array_progress(site, ks::CampaignDir(dir), r.generations_done, &r.live_states_note);
  }
  if (status) {
    json ? ks::write_status_json(std::cout, r) : ks::write_status_table(std::cout, r);
  } else {
    json ? ks::write_report_json(std::cout, r) : ks::write_report_table(std::cout, r);
  }
  return 0;
}

int cmd_submit(const std::vector<std::string>& args) {
  po::options_description opts("kforge submit CAMPAIGN.yaml");
  opts.add_options()("help,h", "this help")("campaign", po::value<std::string>()->required(), "campaign YAML")(
      "site", po::value<std::string>(), "site YAML (default: the embedded local site)")(
      "spool", po::value<std::string>(), "spool directory (default: $KFORGE_SPOOL, else /var/lib/kforge)");
  po::positional_options_description pos;
  pos.add("campaign", 1);
  if (wants_help(args)) {
    std::cout << opts;
    return 0;
  }
  auto vm = parse(args, opts, pos);
  ks::CampaignConfig campaign = ks::load_campaign(vm["campaign"].as<std::string>());
  ks::SiteConfig site = site_from(vm);
  ks::validate_campaign(campaign, site);  // as kforge run does, before the spool is written
  const kd::Spool spool = spool_from(vm);
  kd::submit_campaign(spool, campaign, site);
  std::cout << campaign.name << "\n";
  if (!spool.daemon_is_running()) {
    std::cerr << "kforge submit: no kforged is watching " << spool.root().string()
              << " yet; the campaign starts when one does\n";
  }
  return 0;
}

int cmd_cancel(const std::vector<std::string>& args) {
  po::options_description opts("kforge cancel DIR|NAME");
  opts.add_options()("help,h", "this help")("name", po::value<std::string>()->required(),
                                            "campaign directory, or the name of a campaign the daemon drives")(
      "spool", po::value<std::string>(), "spool directory (default: $KFORGE_SPOOL, else /var/lib/kforge)")(
      "owner", po::value<std::string>(), "with NAME: the campaign of this user (root and the admin group)");
  po::positional_options_description pos;
  pos.add("name", 1);
  if (wants_help(args)) {
    std::cout << opts;
    return 0;
  }
  auto vm = parse(args, opts, pos);
  const std::string name = vm["name"].as<std::string>();
  if (fs::is_directory(name) && fs::exists(ks::CampaignDir(name).campaign_config())) {
    ks::cancel_campaign_dir(ks::CampaignDir(name), std::cout);
    return 0;
  }
  kd::cancel_campaign(spool_from(vm), name, vm.count("owner") ? vm["owner"].as<std::string>() : "");
  return 0;
}

int cmd_plot(const std::vector<std::string>& args) {
  po::options_description opts("kforge plot DIR");
  opts.add_options()("help,h", "this help")("dir", po::value<std::string>(), "campaign directory")(
      "out", po::value<std::string>()->default_value("plots"), "folder for the pictures, their CSV and plot_data.json")(
      "format", po::value<std::string>()->default_value("png"), "png or svg");
  po::positional_options_description pos;
  pos.add("dir", 1);
  auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (!vm.count("dir")) throw Usage("the argument ('dir') is required but missing");
  const std::string format = vm["format"].as<std::string>();
  if (format != "png" && format != "svg") throw Usage("--format must be png or svg, not '" + format + "'");
  return ks::plot_campaign(ks::CampaignDir(vm["dir"].as<std::string>()), vm["out"].as<std::string>(), format);
}

int cmd_watch(const std::vector<std::string>& args) {
  po::options_description opts("kforge watch DIR");
  opts.add_options()("help,h", "this help")("dir", po::value<std::string>(), "campaign directory")(
      "interval", po::value<double>()->default_value(2.0), "seconds between redraws")(
      "once", "draw once and exit (scripts, logs)");
  po::positional_options_description pos;
  pos.add("dir", 1);
  auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (!vm.count("dir")) throw Usage("the argument ('dir') is required but missing");
  const double interval = vm["interval"].as<double>();
  if (!(interval >= 0.1)) throw Usage("--interval must be at least 0.1 seconds");
  return ks::watch_campaign(ks::CampaignDir(vm["dir"].as<std::string>()), interval, vm.count("once") != 0, std::cout);
}

int cmd_export(const std::vector<std::string>& args) {
  po::options_description opts("kforge export DIR --best");
  opts.add_options()("help,h", "this help")("dir", po::value<std::string>()->required(), "campaign directory")(
      "best", "export the best candidate (the only selection so far)")("to", po::value<std::string>(),
                                                                       "folder for <id>.cpp and <id>.yaml");
  po::positional_options_description pos;
  pos.add("dir", 1);
  auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (!vm.count("best")) throw Usage("say which candidate to export: --best");
  std::optional<fs::path> to;
  if (vm.count("to")) to = vm["to"].as<std::string>();
  ks::export_best(ks::CampaignDir(vm["dir"].as<std::string>()), to, std::cout);
  return 0;
}

// Exit 0 when the archive is whole, exit_code::kArchiveDamaged (4) with one line per problem otherwise.
int cmd_verify(const std::vector<std::string>& args) {
  po::options_description opts("kforge verify DIR");
  opts.add_options()("help,h", "this help")("dir", po::value<std::string>()->required(), "campaign directory");
  po::positional_options_description pos;
  pos.add("dir", 1);
  auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  return ks::verify_campaign(vm["dir"].as<std::string>(), std::cout) ? exit_code::kSuccess : exit_code::kArchiveDamaged;
}

// Re-times the best K candidates of each target against the baselines on the campaign's own executor and
// stores the paired speedups with their bootstrap intervals in DIR/confirmation.h5 (docs/cli.md).
int cmd_confirm(const std::vector<std::string>& args) {
  po::options_description opts("kforge confirm DIR --top K [--rounds N]");
  opts.add_options()("help,h", "this help")("dir", po::value<std::string>()->required(), "campaign directory")(
      "top", po::value<int>()->required(), "candidates per target (island), best first")(
      "rounds", po::value<int>()->default_value(10), "paired rounds (at least 2)");
  po::positional_options_description pos;
  pos.add("dir", 1);
  if (wants_help(args)) {
    std::cout << opts;
    return 0;
  }
  auto vm = parse(args, opts, pos);
  const int top = vm["top"].as<int>(), rounds = vm["rounds"].as<int>();
  if (top < 1) throw Usage("--top must be at least 1");
  if (rounds < 2) throw Usage("--rounds must be at least 2 (one round says nothing about the spread)");
  ks::CampaignDir dir(fs::absolute(vm["dir"].as<std::string>()).lexically_normal());
  if (!fs::exists(dir.campaign_config()))
    throw std::runtime_error(dir.root().string() + " is not a kforge campaign directory (no campaign.yaml)");
  ks::CampaignLock lock(dir.lock_file());
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

int dispatch(const std::string& command, const std::vector<std::string>& rest) {
  if (command == "run") return cmd_run(rest, false);
  if (command == "validate") return cmd_run(rest, true);
  if (command == "status") return cmd_report(rest, true);
  if (command == "report") return cmd_report(rest, false);
  if (command == "export") return cmd_export(rest);
  if (command == "plot") return cmd_plot(rest);
  if (command == "watch") return cmd_watch(rest);
  if (command == "verify") return cmd_verify(rest);
  if (command == "confirm") return cmd_confirm(rest);
  if (command == "submit") return cmd_submit(rest);
  if (command == "cancel") return cmd_cancel(rest);
  // Not a Usage: "(see kforge X --help)" would point at a command that does not exist.
  std::cerr << "kforge: unknown command " << command
            << "; commands are run, validate, status, report, plot, watch, export, verify, confirm, submit, cancel\n"
               "(see kforge --help)\n";
  return exit_code::kUsage;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kTopHelp;
    return args.empty() ? exit_code::kUsage : 0;
  }
  if (args[0] == "--version") {
    std::cout << "kforge " KFORGE_VERSION "\n";
    return 0;
  }
  try {
    return dispatch(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const Usage& e) {
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n(see kforge " << args[0] << " --help)\n";
    return exit_code::kUsage;
  } catch (const ks::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const ks::CampaignChangeRefused& e) {  // nothing was written; what() lists the changed keys
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const kd::RequestRefused& e) {  // nothing was written
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const ks::StopRequested& e) {
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n";
    return exit_code_for_stop();
  } catch (const ks::InfrastructureFailure& e) {
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n";
    return exit_code::kInfrastructure;
  } catch (const std::exception& e) {
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n";
    return exit_code::kFailure;
  }
}
