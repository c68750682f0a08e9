#pragma once
// Hand-written gemm candidates (extern "C" kforge_gemm) that misbehave in one way each, with the status
// kforge-eval must record for them.
#include <string>
#include <vector>

#include "kforge/jobs/status.hpp"

namespace kforge::faults {

struct FaultCandidate {
  std::string name;               // what it does, for test messages
  std::string source;             // full C++ source exporting kforge_gemm
  jobs::Status expected;          // the record's status
  std::string evidence_mentions;  // a phrase the evidence must contain ("" = only non-empty)
};

std::vector<FaultCandidate> fault_candidates();

}  // namespace kforge::faults
