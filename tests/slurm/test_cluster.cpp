#include "test_cluster.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace kforge::slurm::testing {
namespace {

std::string slurm_conf_value(const std::string& key) {
  const char* conf = std::getenv("SLURM_CONF");
  if (conf == nullptr) return "";
  std::ifstream in(conf);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
  }
  return "";
}

std::optional<std::string> check_cluster() {
  if (std::getenv("SLURM_CONF") == nullptr) {
    return "SLURM_CONF is not set; run under slurm/scripts/with-cluster.sh or after slurm/scripts/cluster-up.sh";
  }
  if (slurm_conf_value("ClusterName") != "kforge-test") {
    return std::string("SLURM_CONF=") + std::getenv("SLURM_CONF") +
           " is not a kforge test cluster (ClusterName=kforge-test); refusing to submit jobs to it";
  }
  if (std::system("sinfo --noheader >/dev/null 2>&1") != 0) {
    return std::string("'sinfo' fails for SLURM_CONF=") + std::getenv("SLURM_CONF") + "; is the cluster up?";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> why_no_test_cluster() {
  static const std::optional<std::string> reason = check_cluster();
  return reason;
}

std::uint32_t configured_max_array_size() {
  const std::string value = slurm_conf_value("MaxArraySize");
  return value.empty() ? 1001U : static_cast<std::uint32_t>(std::stoul(value));
}

ArrayOutcome wait_for_array(SlurmClient& client, JobId job, std::size_t expected, int timeout_s) {
  ArrayOutcome outcome;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    outcome.tasks = client.array_task_states(job);
    std::size_t running = 0;
    std::size_t finished = 0;
    for (const auto& task : outcome.tasks) {
      running += task.state == "RUNNING" ? 1 : 0;
      finished += task.is_finished() ? 1 : 0;
    }
    outcome.most_running_at_once = std::max(outcome.most_running_at_once, running);
    if (outcome.tasks.size() == expected && finished == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return outcome;
}

bool wait_until_running(SlurmClient& client, JobId job, std::uint32_t task, int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    for (const auto& state : client.array_task_states(job)) {
      if (state.task_id == task && state.state == "RUNNING") return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

}  // namespace kforge::slurm::testing
