#include "agent_job.hpp"

#include <chrono>
#include <cmath>
#include <thread>

#include "kforge/scheduler/executors/executor.hpp"

namespace kforge::scheduler::slurm_detail {
namespace {

std::string quoted(const std::string& word) {  // for bash: single quotes, with ' as '\''
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string agent_batch_script(const AgentProcessSpec& process) {
  std::string command;
  for (const auto& word : process.argv) command += (command.empty() ? "" : " ") + quoted(word);
  return "#!/bin/bash\n# kforge agent operator (docs/agents.md); its brief and children are in the folder below.\n"
         "cd " +
         quoted(process.cwd.string()) + " || exit 125\n" + "exec " + command + " > " +
         quoted(process.stdout_file.string()) + " 2> " + quoted(process.stderr_file.string()) + "\n";
}

AgentProcessResult run_agent_job(kforge::slurm::SlurmClient& client, const SlurmExecutorSpec& spec,
                                 const std::string& campaign, const AgentProcessSpec& process) {
  AgentProcessResult result;
  kforge::slurm::ArraySubmission job;
  job.name = "kf:" + campaign.substr(0, 16) + ":agent";
  job.script = agent_batch_script(process);
  job.array = "0";
  job.partition = spec.agent_partition;
  job.account = spec.account;
  job.qos = spec.qos;
  job.reservation = spec.reservation;
  job.cpus_per_task = static_cast<std::uint32_t>(spec.agent_cpus);
  job.ntasks = 1;
  job.time_limit_minutes = static_cast<std::uint32_t>(std::ceil(process.timeout_s / 60.0)) + 1;
  job.output = (process.cwd / "slurm-%A_%a.out").string();
  job.work_dir = process.cwd.string();
  job.environment = spec.environment;
  const auto start = std::chrono::steady_clock::now();
  kforge::slurm::JobId id = 0;
  try {
    id = client.submit_array(job);
  } catch (const std::exception& e) {
    result.problem = std::string("Slurm refused the agent's job: ") + e.what();
    return result;
  }
  result.started = true;
  result.where = "Slurm job " + std::to_string(id) + " in partition " + spec.agent_partition;
  // The time limit counts from submission: a queue that holds the agent too long is a timeout as well.
  while (true) {
    std::vector<kforge::slurm::ArrayTaskState> states;
    try {
      states = client.array_task_states(id);
    } catch (const std::exception&) {
      states.clear();  // a controller hiccup: ask again next round
    }
    if (!states.empty() && states.front().is_finished()) {
      const auto& s = states.front();
      if (!s.node.empty()) result.where += " on " + s.node;
      result.wall_s = seconds_since(start);
      if (s.state == "TIMEOUT") result.timed_out = true;
      result.exit_code = s.exit_code;
      result.signal = s.signal;
      if (s.state == "CANCELLED" && s.signal == 0) result.signal = 9;
      return result;
    }
    if (seconds_since(start) > process.timeout_s || stop_requested()) {
      try {
        client.cancel(id);
      } catch (const std::exception&) {
        // it may have ended meanwhile; the outcome is a timeout either way
      }
      result.timed_out = true;
      result.wall_s = seconds_since(start);
      return result;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(spec.poll_interval_s, 1.0)));
  }
}

}  // namespace kforge::scheduler::slurm_detail
