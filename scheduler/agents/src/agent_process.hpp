#pragma once
// A child process in its own process group, with a time limit on the whole group (used by run_agent).
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/scheduler/agents/agent_launch.hpp"

namespace kforge::scheduler::agent_process {

using ProcessResult = AgentProcessResult;
using ProcessSpec = AgentProcessSpec;

// Runs to completion or to the time limit, then kills whatever is left of its process group.
ProcessResult run_process_group(const ProcessSpec& spec);

// The last `max_bytes` of a file ("" when it cannot be read), cut at a line start when possible.
std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes);

}  // namespace kforge::scheduler::agent_process
