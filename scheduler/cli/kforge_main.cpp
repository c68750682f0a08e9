// kforge: the command-line interface. `kforge COMMAND --help` for each command; the commands are the table of
// command_table.hpp. Exit codes (kforge/jobs/exit_codes.hpp, docs/cli.md): 0 success, 1 runtime failure (message
// on stderr), 2 bad usage or invalid configuration, 3 infrastructure failure, 4 `kforge verify` found a damaged
// archive, 128 + the signal that stopped `kforge run`.
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "command_table.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/scheduler/config/campaign_change.hpp"
#include "kforge/scheduler/daemon/client.hpp"
#include "kforge/scheduler/driver/infra_failure.hpp"
#include "kforge/scheduler/executors/executor.hpp"

namespace cli = kforge::cli;
namespace ks = kforge::scheduler;
namespace exit_code = kforge::jobs::exit_code;

namespace {

// As a shell reports a command ended by the signal: 130 after Ctrl-C, 143 after SIGTERM.
int exit_code_for_stop() {
  return exit_code::stopped_by_signal(ks::requested_stop_signal() ? ks::requested_stop_signal() : SIGTERM);
}

// Every failure of a command as its message on stderr and its exit code.
int run_guarded(const cli::Command& command, const std::vector<std::string>& args) {
  const std::string name = command.name;
  try {
    return cli::run_command(command, args);
  } catch (const cli::Usage& e) {
    std::cerr << "kforge " << name << ": " << e.what() << "\n(see kforge " << name << " --help)\n";
    return exit_code::kUsage;
  } catch (const ks::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const ks::CampaignChangeRefused& e) {  // nothing was written; what() lists the changed keys
    std::cerr << "kforge " << name << ": " << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const ks::daemon::RequestRefused& e) {  // nothing was written
    std::cerr << "kforge " << name << ": " << e.what() << "\n";
    return exit_code::kUsage;
  } catch (const ks::StopRequested& e) {
    std::cerr << "kforge " << name << ": " << e.what() << "\n";
    return exit_code_for_stop();
  } catch (const ks::InfrastructureFailure& e) {
    std::cerr << "kforge " << name << ": " << e.what() << "\n";
    return exit_code::kInfrastructure;
  } catch (const std::exception& e) {
    std::cerr << "kforge " << name << ": " << e.what() << "\n";
    return exit_code::kFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << cli::top_help();
    return args.empty() ? exit_code::kUsage : exit_code::kSuccess;
  }
  if (args[0] == "--version") {
    std::cout << "kforge " KFORGE_VERSION "\n";
    return exit_code::kSuccess;
  }
  const cli::Command* command = cli::find_command(args[0]);
  if (!command) {
    // Not a Usage: "(see kforge X --help)" would point at a command that does not exist.
    std::cerr << "kforge: unknown command " << args[0] << "; commands are " << cli::command_names()
              << "\n(see kforge --help)\n";
    return exit_code::kUsage;
  }
  return run_guarded(*command, std::vector<std::string>(args.begin() + 1, args.end()));
}
