#pragma once
// What a candidate's sandboxed child tells its rank: the verify result and, when verification passed,
// the timing result. Text lines "key=value" (kv_text.hpp), header "kforge-child-report 1".
#include <optional>
#include <string>
#include <string_view>

#include "kforge/kernels/backend.hpp"

namespace kforge::mpi_eval {

struct ChildReport {
  kernels::VerifyResult verify;
  std::optional<kernels::TimeResult> time;  // only when verify passed
};

std::string encode_child_report(const ChildReport& r);
// Throws std::invalid_argument naming the bad key; a child's payload is untrusted input.
ChildReport decode_child_report(std::string_view text);

}  // namespace kforge::mpi_eval
