#pragma once
// Test data for the archive: records with every field set to a distinct value.
#include "kforge/jobs/archive.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace kforge::jobs::testing {

// Every field differs from its default and from the same field of sample_record(k != i);
// i == 1 uses NaN for the measured doubles and empty parents / samples.
EvalRecord sample_record(int i);
Candidate sample_candidate(int i, int generation);
Baseline sample_baseline(int i);
Provenance sample_provenance();
Generation sample_generation(int generation, int records);
Shard sample_shard(int records);

using ScratchDir = test_support::ScratchDir;

}  // namespace kforge::jobs::testing
