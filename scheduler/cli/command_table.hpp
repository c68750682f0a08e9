#pragma once
// kforge's commands as one table (command_table.cpp): it drives dispatch, `kforge --help` (one line per command)
// and each `kforge COMMAND --help` (the command's options under its usage line), so that a command, its help and
// the man page and bash completion generated from that help (share/man, share/bash-completion) cannot drift apart.
// Each command's entry stands beside its code: campaign_commands.cpp (run, validate, confirm),
// report_commands.cpp (status, report, plot, watch, export, verify), spool_commands.cpp (submit, cancel),
// serve_command.cpp (serve), suggest_command.cpp (suggest).
#include <boost/program_options.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/daemon/spool.hpp"

namespace kforge::cli {

namespace po = boost::program_options;

// Bad usage of a command: exit 2 with "(see kforge COMMAND --help)".
struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Command {
  const char* name;        // "run"
  const char* synopsis;    // its arguments in `kforge --help`: "CAMPAIGN.yaml [--site SITE.yaml] [--out DIR]"
  const char* summary;     // what it does, in `kforge --help`
  const char* usage;       // the first line of its own --help: "kforge run CAMPAIGN.yaml"
  const char* positional;  // the option its bare argument fills: "campaign", "dir" or "name"; nullptr: none
  void (*add_options)(po::options_description& options);  // every option but --help, in the order --help lists them
  int (*run)(const po::variables_map& options);           // returns the exit code; throws Usage for bad usage
};

extern const Command kRunCommand, kValidateCommand, kConfirmCommand;
extern const Command kStatusCommand, kReportCommand, kPlotCommand, kWatchCommand, kExportCommand, kVerifyCommand;
extern const Command kSubmitCommand, kCancelCommand;
extern const Command kServeCommand, kSuggestCommand, kCatalogCommand;

// Every command, in the order of `kforge --help`.
const std::vector<const Command*>& commands();
// nullptr for a name that is no command.
const Command* find_command(const std::string& name);

// `kforge --help`: the version line, the usage, one line per command and the defaults every command shares.
std::string top_help();
// "run, validate, ...": every command's name, for the message about an unknown one.
std::string command_names();

// Runs `kforge COMMAND ARGS...`: with --help (or -h) anywhere among ARGS, prints the command's options under its
// usage line and returns 0; otherwise parses ARGS (a Usage error when they do not fit) and runs the command.
int run_command(const Command& command, const std::vector<std::string>& args);

// Helpers of several commands.
// The site of --site, or the embedded default site (local executor, no Slurm, no GPU).
scheduler::SiteConfig site_from(const po::variables_map& options);
// The catalog folder of --site's site (KFORGE_CATALOG wins, docs/catalog.md); without one (none), says so on stderr
// as `kforge COMMAND: no catalog ...` and returns std::nullopt (catalog_command.cpp).
std::optional<std::filesystem::path> catalog_from(const po::variables_map& options, const char* command);
// The spool of --spool, or $KFORGE_SPOOL, else /var/lib/kforge.
scheduler::daemon::Spool spool_from(const po::variables_map& options);
// The value of an optional string option, or "".
std::string string_or_empty(const po::variables_map& options, const char* name);
// `kforge status` without DIR: one line per campaign of the spool; with NAME (one of the caller's, or of OWNER)
// the same line and the same JSON schema for that campaign alone (spool_commands.cpp).
int spool_status(const scheduler::daemon::Spool& spool, bool json, const std::string& name = "",
                 const std::string& owner = "");

}  // namespace kforge::cli
