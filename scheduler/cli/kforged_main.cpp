// kforged: the campaign daemon. Watches a spool directory, drives every submitted campaign through one
// `kforge run` child each, and survives being killed at any instant (docs/daemon.md).
//   exit 0 clean stop (SIGTERM/SIGINT) or, with --once, every campaign ended without a failure
//   exit 1 another fatal error, or with --once a campaign failed
//   exit 2 fatal configuration error: bad usage, unusable spool, spool held by another kforged, no kforge binary
#include <boost/program_options.hpp>

#include <sys/stat.h>

#include <iostream>
#include <string>

#include "kforge/jobs/exit_codes.hpp"
#include "kforge/scheduler/daemon/child_process.hpp"
#include "kforge/scheduler/daemon/identity.hpp"
#include "kforge/scheduler/daemon/log.hpp"
#include "kforge/scheduler/daemon/spool.hpp"
#include "kforge/scheduler/daemon/supervisor.hpp"

namespace po = boost::program_options;
namespace kd = kforge::scheduler::daemon;
namespace fs = std::filesystem;

namespace {

namespace exit_code = kforge::jobs::exit_code;

po::options_description options() {
  po::options_description opts("kforged " KFORGE_VERSION
                               " - the kforge campaign daemon (always in the foreground; logs to stderr)\n\n"
                               "usage: kforged [--spool DIR] [--admin-group GROUP] [--once]\n\n"
                               "As root it serves every local user: each campaign runs as the user who submitted it.\n"
                               "As an ordinary user it serves that user only. docs/daemon.md\n\noptions");
  opts.add_options()("help,h", "this help")("version", "print the version")(
      "spool", po::value<std::string>(), "spool directory (default: $KFORGE_SPOOL, else /var/lib/kforge)")(
      "foreground", "accepted for clarity; kforged never forks into the background (systemd Type=simple)")(
      "once", "drive every campaign to its end (done, cancelled, failed), then exit: for tests and Slurm head jobs")(
      "max-restarts", po::value<int>()->default_value(5), "a campaign whose child fails more often in a row is FAILED")(
      "admin-group", po::value<std::string>(),
      "members of this group may see and cancel every user's campaigns (kforged as root only)");
  return opts;
}

int run_daemon(const po::variables_map& vm) {
  kd::Log log = kd::Log::for_stderr();
  kd::DaemonOptions o;
  o.spool = fs::absolute(vm.count("spool") ? fs::path(vm["spool"].as<std::string>()) : kd::default_spool_path());
  o.once = vm.count("once") != 0;
  o.max_restarts = vm["max-restarts"].as<int>();
  try {
    o.kforge_binary = kd::locate_kforge_binary();
    o.policy.multi_user = kd::can_switch_users();
    if (vm.count("admin-group")) {
      if (!o.policy.multi_user) {
        throw std::runtime_error(
            "--admin-group needs kforged to run as root: a kforged run by a user serves that "
            "user only");
      }
      o.policy.admin_group = kd::group_by_name(vm["admin-group"].as<std::string>());
    }
  } catch (const std::exception& e) {
    log.error("kforged", e.what());
    return exit_code::kUsage;
  }
  // Files the daemon creates for a campaign (as its owner) and the children's files: private to the owner, or
  // readable by the admin group (through the setgid user folder).
  ::umask(o.policy.admin_group ? 027 : 077);
  try {
    const kd::Spool spool(o.spool);
    spool.create_layout(o.policy);
    const kd::SpoolLock lock(spool);
    kd::Supervisor supervisor(o, log);
    return supervisor.run();
  } catch (const kd::SpoolError& e) {
    log.error("kforged", e.what());
    return exit_code::kUsage;
  } catch (const std::exception& e) {
    log.error("kforged", std::string("fatal: ") + e.what());
    return exit_code::kFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts = options();
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, opts), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "kforged: " << e.what() << "\n(see kforged --help)\n";
    return exit_code::kUsage;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "kforged " KFORGE_VERSION "\n";
    return 0;
  }
  if (vm["max-restarts"].as<int>() < 0) {
    std::cerr << "kforged: --max-restarts must be 0 or more\n";
    return exit_code::kUsage;
  }
  return run_daemon(vm);
}
