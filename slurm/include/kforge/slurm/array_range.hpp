#pragma once
// Slurm job array index expressions ("0-15%4", "1,3,5-7", "0-20:2") as plain data.
//
// Lets a caller check a submission against SlurmLimits before sending it, and lets the backends expand
// the one record Slurm keeps for an array's still-pending tasks.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace kforge::slurm {

struct ArrayRange {
  std::vector<std::uint32_t> indices;     // sorted, unique
  std::optional<std::uint32_t> throttle;  // the "%N" suffix: at most N tasks run at once
};

// Parses Slurm's --array syntax. Throws std::invalid_argument naming the offending text.
ArrayRange parse_array_range(std::string_view expression);

}  // namespace kforge::slurm
