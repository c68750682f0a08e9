#pragma once
// Pieces both backends share, so that they report tasks identically.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::slurm::detail {

// Fills exit_code/signal from Slurm's exit_code field, which holds a wait(2) status.
void set_exit_status(ArrayTaskState& task, std::uint32_t wait_status);

void sort_by_task_id(std::vector<ArrayTaskState>& tasks);

// "22.05" from "22.05.8" (or "slurm 22.05.8"): the release that must match for libslurm to be used.
std::string major_minor(const std::string& version);

// A whole decimal number, or nullopt.
std::optional<std::uint32_t> parse_uint(std::string_view text);

// The default sbatch gives an array's output file, so that both backends write to the same place.
inline constexpr const char* kDefaultArrayOutput = "slurm-%A_%a.out";

}  // namespace kforge::slurm::detail
