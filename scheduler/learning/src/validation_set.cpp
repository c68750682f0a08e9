// The validation set grows with every input or shape that caught a wrong candidate (learning.hpp).
#include <algorithm>

#include "kforge/scheduler/learning/learning.hpp"

namespace kforge::scheduler {

std::vector<jobs::ValidationCase> grow_validation(std::vector<jobs::ValidationCase> set,
                                                  const std::vector<jobs::EvalRecord>& records, int generation) {
  for (const auto& r : records) {
    if (r.failed_case.empty() || set.size() >= kMaxValidationCases) continue;
    const bool known = std::any_of(set.begin(), set.end(), [&](const auto& c) { return c.text == r.failed_case; });
    if (!known) set.push_back({r.failed_case, generation, r.candidate_id, std::string(jobs::to_string(r.status))});
  }
  return set;
}

}  // namespace kforge::scheduler
