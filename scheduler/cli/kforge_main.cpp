// kforge: the command-line interface. `kforge COMMAND --help` for each command.
//   exit 0 success, 1 runtime failure (message on stderr), 2 bad usage or invalid configuration.
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "kforge/scheduler/campaign_runner.hpp"
#include "kforge/scheduler/export.hpp"
#include "kforge/scheduler/report.hpp"

namespace po = boost::program_options;
namespace ks = kforge::scheduler;
namespace fs = std::filesystem;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kTopHelp =
    "kforge " KFORGE_VERSION " - evolves GPU and CPU kernels\n\n"
    "usage: kforge COMMAND [options]\n\n"
    "commands:\n"
    "  run CAMPAIGN.yaml [--site SITE.yaml] [--out DIR]   run (or resume) a campaign in the foreground\n"
    "  validate CAMPAIGN.yaml [--site SITE.yaml]          check both configs, write nothing\n"
    "  status DIR [--json]                               where a campaign stands\n"
    "  report DIR [--json]                               per-generation table, best candidate, lineage\n"
    "  export DIR --best [--to PATH]                     the best candidate's source, parameters, evidence\n\n"
    "Without --site the embedded default site (local executor, no Slurm, no GPU) is used.\n";

po::variables_map parse(const std::vector<std::string>& args, po::options_description& opts,
                        const po::positional_options_description& pos) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
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
  if (!validate_only) opts.add_options()("out", po::value<std::string>(), "campaign directory (default: runs/NAME)");
  po::positional_options_description pos;
  pos.add("campaign", 1);
  if (std::find(args.begin(), args.end(), "--help") != args.end() || std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << opts;
    return 0;
  }
  auto vm = parse(args, opts, pos);
  ks::CampaignConfig campaign = ks::load_campaign(vm["campaign"].as<std::string>());
  ks::SiteConfig site = site_from(vm);
  ks::SearchSpace space(campaign.space);  // constraint errors surface before anything is written
  if (validate_only) {
    std::cout << campaign.file.string() << ": ok (" << campaign.space.parameters.size() << " parameters, up to "
              << space.cardinality() << " configurations)\n"
              << site.file.string() << ": ok (executor " << site.executor << ")\n";
    return 0;
  }
  ks::CampaignDir dir(vm.count("out") ? fs::path(vm["out"].as<std::string>()) : fs::path("runs") / campaign.name);
  fs::create_directories(dir.root());
  ks::CampaignLock lock(dir.lock_file());
  ks::prepare_campaign_dir(dir, campaign, site);
  ks::LocalExecutor executor(site.local, ks::locate_eval_binary());
  std::cout << "kforge: campaign " << campaign.name << " in " << dir.root().string() << " (site " << site.name
            << ", executor " << executor.name() << ")" << std::endl;
  ks::CampaignRunner runner(campaign, site, dir, executor, std::cout);
  const int done = runner.run();
  std::cout << "kforge: " << done << " generations in " << dir.index_file().string() << std::endl;
  return 0;
}

int cmd_report(const std::vector<std::string>& args, bool status) {
  po::options_description opts(status ? "kforge status DIR" : "kforge report DIR");
  opts.add_options()("help,h", "this help")("dir", po::value<std::string>()->required(), "campaign directory")(
      "json", "machine-readable JSON (schema in docs/cli.md)");
  po::positional_options_description pos;
  pos.add("dir", 1);
  auto vm = parse(args, opts, pos);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  ks::CampaignReport r = ks::build_report(ks::CampaignDir(vm["dir"].as<std::string>()));
  const bool json = vm.count("json") != 0;
  if (status) {
    json ? ks::write_status_json(std::cout, r) : ks::write_status_table(std::cout, r);
  } else {
    json ? ks::write_report_json(std::cout, r) : ks::write_report_table(std::cout, r);
  }
  return 0;
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

int dispatch(const std::string& command, const std::vector<std::string>& rest) {
  if (command == "run") return cmd_run(rest, false);
  if (command == "validate") return cmd_run(rest, true);
  if (command == "status") return cmd_report(rest, true);
  if (command == "report") return cmd_report(rest, false);
  if (command == "export") return cmd_export(rest);
  throw Usage("unknown command '" + command + "' (run, validate, status, report, export)");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kTopHelp;
    return args.empty() ? kExitUsage : 0;
  }
  if (args[0] == "--version") {
    std::cout << "kforge " KFORGE_VERSION "\n";
    return 0;
  }
  try {
    return dispatch(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const Usage& e) {
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n(see kforge " << args[0] << " --help)\n";
    return kExitUsage;
  } catch (const ks::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "kforge " << args[0] << ": " << e.what() << "\n";
    return kExitFailure;
  }
}
