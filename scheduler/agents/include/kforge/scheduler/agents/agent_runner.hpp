#pragma once
// Running one agent operator as a local process (ARCHITECTURE.md, "Agent operator protocol"; docs/agents.md).
// The agent is started as `COMMAND... --brief DIR/brief.yaml --children DIR/children.yaml` in its own process
// group, with DIR as its working directory and stdout/stderr captured to DIR/agent.stdout and DIR/agent.stderr.
// At the time limit the whole group is killed. A crash, a timeout or malformed output is an outcome of that
// operator, recorded in AgentOutcome; run_agent never throws because of what the agent did.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/scheduler/agents/agent_launch.hpp"
#include "kforge/scheduler/agents/brief.hpp"
#include "kforge/scheduler/agents/children.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {

struct AgentSpec {
  std::string name;                  // becomes the candidates' op "agent:<name>"
  std::vector<std::string> command;  // argv; a relative argv[0] with a '/' is taken from the caller's cwd
  double timeout_s = 60.0;
  std::filesystem::path working_dir;  // created if missing; holds brief, children and the captured output
  AgentLauncher launcher;             // empty: a local process group on this machine
};

enum class AgentStatus { ok, crashed, timed_out, malformed };
std::string_view to_string(AgentStatus status);

struct AgentOutcome {
  AgentStatus status = AgentStatus::crashed;
  int exit_code = -1;  // when the agent exited on its own
  int signal = 0;      // when a signal ended it (SIGKILL after a timeout included)
  double wall_s = 0.0;
  std::vector<AgentChild> children;
  std::vector<RejectedChild> rejected;
  std::string evidence;  // what happened, the reasons for rejections and the tail of the agent's stderr
};

// Writes the brief into spec.working_dir, runs the agent and reads its children against `space`
// (children_rules(brief, space)). Status: ok when it exited 0 and its children file could be read (some entries
// may still be rejected); malformed when it exited 0 but the file is missing or unreadable, or every entry was
// rejected; crashed when it exited non-zero, was killed by a signal or could not be started; timed_out when
// the time limit ran out. Throws only when the working directory or brief cannot be written (std::runtime_error).
AgentOutcome run_agent(const AgentSpec& spec, const AgentBrief& brief, const SearchSpace& space);

}  // namespace kforge::scheduler
