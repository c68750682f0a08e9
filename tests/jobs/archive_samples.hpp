#pragma once
// Test data for the archive: records with every field set to a distinct value, and a scratch folder.
#include <filesystem>
#include <string>

#include "kforge/jobs/archive.hpp"

namespace kforge::jobs::testing {

// Every field differs from its default and from the same field of sample_record(k != i);
// i == 1 uses NaN for the measured doubles and empty parents / samples.
EvalRecord sample_record(int i);
Candidate sample_candidate(int i, int generation);
Baseline sample_baseline(int i);
Provenance sample_provenance();
Generation sample_generation(int generation, int records);
Shard sample_shard(int records);

// A fresh folder under the system temp dir, removed with everything in it on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kforge::jobs::testing
