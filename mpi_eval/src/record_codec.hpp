#pragma once
// EvalRecord and Baseline <-> text, for the worker rank -> rank 0 messages and the baseline child's payload.
// Line-based "key=value" (kv_text.hpp); every field of the record round-trips exactly (doubles as %.17g).
#include <string>
#include <string_view>
#include <vector>

#include "kforge/jobs/record.hpp"

namespace kforge::mpi_eval {

std::string encode_record(const jobs::EvalRecord& r);
jobs::EvalRecord decode_record(std::string_view text);  // throws std::invalid_argument naming the bad key

std::string encode_baselines(const std::vector<jobs::Baseline>& b);
std::vector<jobs::Baseline> decode_baselines(std::string_view text);  // throws std::invalid_argument

}  // namespace kforge::mpi_eval
