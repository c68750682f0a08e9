// The commands that read a campaign directory and change nothing: status, report, plot, watch, export, verify.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "command_table.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/scheduler/daemon/spool.hpp"
#include "kforge/scheduler/executors/slurm_conf.hpp"
#include "kforge/scheduler/executors/slurm_executor.hpp"
#include "kforge/scheduler/report/export.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "kforge/scheduler/report/verify.hpp"

namespace kforge::cli {
namespace ks = kforge::scheduler;
namespace kd = kforge::scheduler::daemon;
namespace fs = std::filesystem;

namespace {

void dir_and_json_options(po::options_description& options) {
  options.add_options()("dir", po::value<std::string>(), "campaign directory")(
      "json", "machine-readable JSON (schema in docs/cli.md)");
}

void status_options(po::options_description& options) {
  dir_and_json_options(options);
  options.add_options()("spool", po::value<std::string>(), "spool directory (no DIR, or NAME of a spool campaign)")(
      "owner", po::value<std::string>(), "with NAME: the campaign of this user (root and the admin group)");
}

void report_options(po::options_description& options) {
  dir_and_json_options(options);
  options.add_options()("html", po::value<std::string>(), "write one self-contained HTML page (tables, plots)");
}

std::string required_dir(const po::variables_map& options) {
  if (!options.count("dir")) throw Usage("the argument ('dir') is required but missing");
  return options["dir"].as<std::string>();
}

// Without DIR: every campaign of the spool; with the NAME of a spool campaign: that one; else the directory, with
// the live states of its Slurm arrays while a generation is in progress.
int status(const po::variables_map& options) {
  const bool json = options.count("json") != 0;
  if (!options.count("dir")) return spool_status(spool_from(options), json);
  const fs::path dir = options["dir"].as<std::string>();
  if (!fs::exists(dir) && kd::is_valid_campaign_name(dir.string()))
    return spool_status(spool_from(options), json, dir.string(), string_or_empty(options, "owner"));
  ks::CampaignReport r = ks::build_report(ks::CampaignDir(dir));
  if (r.generations_done < r.generations_planned && fs::exists(ks::CampaignDir(dir).site_config())) {
    const ks::SiteConfig site = ks::load_site(ks::CampaignDir(dir).site_config());
    ks::use_site_slurm_conf(site);
    r.arrays = ks::slurm_array_progress(site, ks::CampaignDir(dir), r.generations_done, &r.live_states_note);
  }
  json ? ks::write_status_json(std::cout, r) : ks::write_status_table(std::cout, r);
  return 0;
}

int report(const po::variables_map& options) {
  const ks::CampaignDir dir(required_dir(options));
  if (options.count("html")) return ks::write_report_html(dir, options["html"].as<std::string>());
  const ks::CampaignReport r = ks::build_report(dir);
  options.count("json") ? ks::write_report_json(std::cout, r) : ks::write_report_table(std::cout, r);
  return 0;
}

void plot_options(po::options_description& options) {
  options.add_options()("dir", po::value<std::string>(), "campaign directory")(
      "out", po::value<std::string>()->default_value("plots"), "folder for the pictures, their CSV and plot_data.json")(
      "format", po::value<std::string>()->default_value("png"), "png or svg");
}

int plot(const po::variables_map& options) {
  const std::string dir = required_dir(options);
  const std::string format = options["format"].as<std::string>();
  if (format != "png" && format != "svg") throw Usage("--format must be png or svg, not '" + format + "'");
  return ks::plot_campaign(ks::CampaignDir(dir), options["out"].as<std::string>(), format);
}

void watch_options(po::options_description& options) {
  options.add_options()("dir", po::value<std::string>(), "campaign directory")(
      "interval", po::value<double>()->default_value(2.0), "seconds between redraws")(
      "once", "draw once and exit (scripts, logs)");
}

int watch(const po::variables_map& options) {
  const std::string dir = required_dir(options);
  const double interval = options["interval"].as<double>();
  if (!(interval >= 0.1)) throw Usage("--interval must be at least 0.1 seconds");
  return ks::watch_campaign(ks::CampaignDir(dir), interval, options.count("once") != 0, std::cout);
}

void export_options(po::options_description& options) {
  options.add_options()("dir", po::value<std::string>()->required(), "campaign directory")(
      "best", "export the best candidate (the only selection so far)")("to", po::value<std::string>(),
                                                                       "folder for <id>.cpp and <id>.yaml");
}

int export_best(const po::variables_map& options) {
  if (!options.count("best")) throw Usage("say which candidate to export: --best");
  std::optional<fs::path> to;
  if (options.count("to")) to = options["to"].as<std::string>();
  ks::export_best(ks::CampaignDir(options["dir"].as<std::string>()), to, std::cout);
  return 0;
}

void verify_options(po::options_description& options) {
  options.add_options()("dir", po::value<std::string>()->required(), "campaign directory");
}

// Exit 0 when the archive is whole, else kArchiveDamaged with one line per problem.
int verify(const po::variables_map& options) {
  return ks::verify_campaign(options["dir"].as<std::string>(), std::cout) ? jobs::exit_code::kSuccess
                                                                          : jobs::exit_code::kArchiveDamaged;
}

}  // namespace

const Command kStatusCommand{"status",
                             "[DIR|NAME] [--json] [--spool S] [--owner U]",
                             "where a campaign stands; no DIR: every campaign of the spool",
                             "kforge status [DIR|NAME]",
                             "dir",
                             status_options,
                             status};
const Command kReportCommand{"report",
                             "DIR [--json|--html FILE]",
                             "per-generation table, best candidate, lineage",
                             "kforge report DIR",
                             "dir",
                             report_options,
                             report};
const Command kPlotCommand{"plot",
                           "DIR [--out DIR] [--format png|svg]",
                           "pictures of the campaign, with their data as CSV/JSON",
                           "kforge plot DIR",
                           "dir",
                           plot_options,
                           plot};
const Command kWatchCommand{"watch",
                            "DIR [--interval S] [--once]",
                            "live progress bars, ETA and best so far of a campaign",
                            "kforge watch DIR",
                            "dir",
                            watch_options,
                            watch};
const Command kExportCommand{"export",
                             "DIR --best [--to PATH]",
                             "the best candidate's source, parameters, evidence",
                             "kforge export DIR --best",
                             "dir",
                             export_options,
                             export_best};
const Command kVerifyCommand{
    "verify",       "DIR", "check every archive file; exit 4 and one line per problem", "kforge verify DIR", "dir",
    verify_options, verify};

}  // namespace kforge::cli
