#pragma once
// Host gemm candidates with distinct ids, for the tests that split candidates into tasks or gather their shards.
#include <cstdint>
#include <vector>

#include "kforge/jobs/candidate.hpp"

namespace kforge::scheduler::testing {

inline std::vector<jobs::Candidate> gemm_candidates(int n) {
  std::vector<jobs::Candidate> out;
  for (int i = 0; i < n; ++i) {
    jobs::Candidate c;
    c.family = "gemm";
    c.backend = "host";
    c.genome.params["MC"] = std::int64_t{i};
    jobs::assign_id(c);
    out.push_back(c);
  }
  return out;
}

}  // namespace kforge::scheduler::testing
