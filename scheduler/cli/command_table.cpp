#include "command_table.hpp"

#include <algorithm>
#include <iostream>

namespace kforge::cli {

namespace {

// Where the summaries start in `kforge --help` (after the two spaces of indent): one column for every command, so
// that the list reads as a table; a longer synopsis is followed by one space.
constexpr std::size_t kSummaryColumn = 50;

bool wants_help(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--help") != args.end() ||
         std::find(args.begin(), args.end(), "-h") != args.end();
}

po::options_description options_of(const Command& command) {
  po::options_description options(command.usage);
  options.add_options()("help,h", "this help");
  command.add_options(options);
  return options;
}

}  // namespace

const std::vector<const Command*>& commands() {
  static const std::vector<const Command*> table{&kRunCommand,     &kValidateCommand, &kStatusCommand, &kReportCommand,
                                                 &kPlotCommand,    &kWatchCommand,    &kExportCommand, &kVerifyCommand,
                                                 &kConfirmCommand, &kSubmitCommand,   &kCancelCommand, &kServeCommand,
                                                 &kSuggestCommand, &kCatalogCommand};
  return table;
}

const Command* find_command(const std::string& name) {
  for (const Command* c : commands())
    if (name == c->name) return c;
  return nullptr;
}

std::string command_names() {
  std::string names;
  for (const Command* c : commands()) names += (names.empty() ? "" : ", ") + std::string(c->name);
  return names;
}

std::string top_help() {
  std::string text = "kforge " KFORGE_VERSION
                     " - evolves GPU and CPU kernels\n\n"
                     "usage: kforge COMMAND [options]\n\n"
                     "commands:\n";
  for (const Command* c : commands()) {
    const std::string call = std::string(c->name) + " " + c->synopsis;
    text += "  " + call +
            std::string(std::max<std::size_t>(1, kSummaryColumn - std::min(kSummaryColumn, call.size())), ' ') +
            c->summary + "\n";
  }
  return text +
         "\nWithout --site the embedded default site (local executor, no Slurm, no GPU) is used.\n"
         "The spool defaults to $KFORGE_SPOOL, else /var/lib/kforge (docs/daemon.md).\n";
}

int run_command(const Command& command, const std::vector<std::string>& args) {
  const po::options_description options = options_of(command);
  if (wants_help(args)) {
    std::cout << options;
    return 0;
  }
  po::positional_options_description positional;
  if (command.positional) positional.add(command.positional, 1);  // `kforge catalog` takes no bare argument
  po::variables_map values;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), values);
    po::notify(values);
  } catch (const po::error& e) {
    throw Usage(e.what());
  }
  return command.run(values);
}

scheduler::SiteConfig site_from(const po::variables_map& options) {
  return options.count("site") ? scheduler::load_site(options["site"].as<std::string>())
                               : scheduler::embedded_default_site();
}

scheduler::daemon::Spool spool_from(const po::variables_map& options) {
  return scheduler::daemon::Spool(options.count("spool") ? std::filesystem::path(options["spool"].as<std::string>())
                                                         : scheduler::daemon::default_spool_path());
}

std::string string_or_empty(const po::variables_map& options, const char* name) {
  return options.count(name) ? options[name].as<std::string>() : "";
}

}  // namespace kforge::cli
