#pragma once
// Gemm candidates that attack the harness, the node or other candidates instead of (or before) computing, one
// attack each (docs/isolation.md). An attack that works makes the candidate write NaN into C and say so on
// stderr, so a hole in the sandbox shows up as wrong_result where `expected` says ok.
#include <string>
#include <vector>

#include "fault_candidates.hpp"

namespace kforge::faults {

// `task_dir` holds the task's manifest and shard: the files an attacker wants to read or overwrite.
std::vector<FaultCandidate> hostile_candidates(const std::string& task_dir);

}  // namespace kforge::faults
