#pragma once
// Turning what a Slurm command-line tool printed into a SlurmError with Slurm's errno.

#include <string>
#include <vector>

#include "command.hpp"
#include "kforge/slurm/slurm_error.hpp"

namespace kforge::slurm::detail {

// The Slurm error number whose slurm_strerror text appears in message (the longest such text), or 0.
// The tools print errors as "<tool>: error: ...: <slurm_strerror text>".
int slurm_errno_from_message(const std::string& message);

// The tool's error lines without their "<tool>: error: " prefix, joined by "; " (all of stderr if none).
std::string tool_error_text(const std::string& stderr_text);

SlurmError tool_error(const std::vector<std::string>& argv, const CommandResult& result);

}  // namespace kforge::slurm::detail
