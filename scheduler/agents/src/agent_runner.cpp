// run_agent: brief in, process with a time limit, children out; every failure of the agent becomes an outcome.
#include "kforge/scheduler/agents/agent_runner.hpp"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "agent_process.hpp"

namespace kforge::scheduler {
namespace {

constexpr std::size_t kStderrTailBytes = 4096;

std::filesystem::path absolute_command(const std::string& argv0) {
  if (argv0.find('/') == std::string::npos) return argv0;  // looked up on PATH
  return std::filesystem::absolute(argv0);
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

std::string how_it_ended(const AgentSpec& spec, const agent_process::ProcessResult& run) {
  const std::string who = "agent '" + spec.name + "'" + (run.where.empty() ? "" : " (" + run.where + ")");
  if (!run.started) return who + " could not be started: " + run.problem;
  if (run.timed_out)
    return who + " ran past its time limit of " + seconds(spec.timeout_s) + " and was killed with its process group";
  if (run.signal != 0)
    return who + " was killed by signal " + std::to_string(run.signal) + " (" + strsignal(run.signal) + ") after " +
           seconds(run.wall_s);
  return who + " exited with code " + std::to_string(run.exit_code) + " after " + seconds(run.wall_s);
}

AgentStatus status_of(const agent_process::ProcessResult& run, const ChildrenFile& file) {
  if (run.timed_out) return AgentStatus::timed_out;  // it ends by our SIGKILL, which is not a crash
  if (!run.started || run.signal != 0 || run.exit_code != 0) return AgentStatus::crashed;
  if (!file.ok() || (file.children.empty() && !file.rejected.empty())) return AgentStatus::malformed;
  return AgentStatus::ok;
}

}  // namespace

std::string_view to_string(AgentStatus status) {
  switch (status) {
    case AgentStatus::ok:
      return "ok";
    case AgentStatus::crashed:
      return "crashed";
    case AgentStatus::timed_out:
      return "timed_out";
    case AgentStatus::malformed:
      return "malformed";
  }
  return "unknown";
}

AgentOutcome run_agent(const AgentSpec& spec, const AgentBrief& brief, const SearchSpace& space) {
  if (spec.command.empty()) throw std::invalid_argument("run_agent: agent '" + spec.name + "' has an empty command");
  std::error_code ec;
  std::filesystem::create_directories(spec.working_dir, ec);
  if (ec) throw std::runtime_error("run_agent: cannot create " + spec.working_dir.string() + ": " + ec.message());
  const auto dir = std::filesystem::absolute(spec.working_dir);
  const auto brief_file = dir / "brief.yaml", children_file = dir / "children.yaml";
  std::filesystem::remove(children_file, ec);  // a stale file from an earlier run must not pass as output
  write_brief(brief_file, brief);

  agent_process::ProcessSpec process;
  process.argv = spec.command;
  process.argv.front() = absolute_command(spec.command.front()).string();
  process.argv.insert(process.argv.end(), {"--brief", brief_file.string(), "--children", children_file.string()});
  process.cwd = dir;
  process.stdout_file = dir / "agent.stdout";
  process.stderr_file = dir / "agent.stderr";
  process.timeout_s = spec.timeout_s;
  const auto run = spec.launcher ? spec.launcher(process) : agent_process::run_process_group(process);

  ChildrenFile file;
  const bool exited_cleanly = run.started && !run.timed_out && run.signal == 0 && run.exit_code == 0;
  if (exited_cleanly) file = read_children(children_file, children_rules(brief, space));

  AgentOutcome outcome;
  outcome.status = status_of(run, file);
  outcome.exit_code = run.exit_code;
  outcome.signal = run.signal;
  outcome.wall_s = run.wall_s;
  outcome.children = std::move(file.children);
  outcome.rejected = std::move(file.rejected);
  outcome.evidence = how_it_ended(spec, run) + "\n";
  if (!file.failure.empty()) outcome.evidence += "children file: " + file.failure + "\n";
  for (const auto& rejected : outcome.rejected) outcome.evidence += "rejected " + rejected.reason + "\n";
  if (const auto tail = agent_process::file_tail(process.stderr_file, kStderrTailBytes); !tail.empty())
    outcome.evidence += "stderr (last " + std::to_string(kStderrTailBytes) + " bytes):\n" + tail;
  return outcome;
}

}  // namespace kforge::scheduler
