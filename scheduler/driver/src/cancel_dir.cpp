#include "kforge/scheduler/driver/cancel_dir.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "kforge/jobs/record.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/executors/slurm_conf.hpp"
#include "kforge/scheduler/executors/slurm_executor.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

void refuse_cancelled_campaign(const CampaignDir& dir) {
  if (!fs::exists(dir.cancelled_marker())) return;
  std::string when = jobs::read_text_file(dir.cancelled_marker());
  while (!when.empty() && when.back() == '\n') when.pop_back();
  throw std::runtime_error(dir.root().string() + " was cancelled (" + when + "); to resume it anyway, remove " +
                           dir.cancelled_marker().string() + " and run the same command again");
}

void cancel_campaign_dir(const CampaignDir& dir, std::ostream& out) {
  if (!fs::exists(dir.campaign_config())) {
    throw std::runtime_error(dir.root().string() + " is not a campaign directory (it has no campaign.yaml)");
  }
  if (!fs::exists(dir.cancelled_marker())) {
    jobs::write_text_file_atomically(
        dir.cancelled_marker(), "cancelled " + jobs::iso8601_now() + " by uid " + std::to_string(::getuid()) + "\n");
  }
  if (const long pid = campaign_driver_pid(dir); pid > 0) {
    if (::kill(static_cast<pid_t>(pid), SIGTERM) != 0) {
      throw std::runtime_error("the campaign is driven by pid " + std::to_string(pid) +
                               ", which this user may not signal; " + dir.cancelled_marker().string() +
                               " is written: that driver cancels its jobs when it next stops");
    }
    out << "kforge cancel: sent SIGTERM to the driving kforge run (pid " << pid << ")" << std::endl;
    // It cancels its own arrays when it sees CANCELLED; wait so that the caller knows they are gone.
    for (int i = 0; i < 600 && campaign_driver_pid(dir) != 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (campaign_driver_pid(dir) != 0)
      out << "kforge cancel: the driver has not stopped yet after 60 s" << std::endl;
    else
      out << "kforge cancel: the driver stopped" << std::endl;
    return;
  }
  if (!fs::exists(dir.site_config())) return;
  const SiteConfig site = load_site(dir.site_config());
  use_site_slurm_conf(site);  // its slurm.conf, before any Slurm call (slurm_conf.hpp)
  const int current = dir.completed_generations();
  const auto jobs = cancel_recorded_arrays(site, dir, current);
  out << "kforge cancel: no driver is running; ";
  if (jobs.empty()) {
    out << "no Slurm array of generation " << current << " to cancel" << std::endl;
  } else {
    out << "cancelled Slurm array(s)";
    for (const auto& j : jobs) out << " " << j;
    out << " of generation " << current << std::endl;
  }
}

}  // namespace kforge::scheduler
