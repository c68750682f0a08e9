#pragma once
// A fully measured search space replayed from a Kernel Tuner cache (gzipped or plain JSON): evaluating a
// configuration means looking up the time that was measured for it on a real GPU.
//
// Validity: Kernel Tuner caches exactly the configurations that satisfy the space's constraints (failed ones
// included, with their failure kind), so a configuration is valid if and only if it is in the cache. The
// constraints of the optional space definition (e.g. convolution_milo.json) are kept as text, for people only.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kforge/jobs/genome.hpp"

namespace kforge::kernels {

enum class ReplayOutcome {
  measured,        // has a time
  compile_failed,  // "CompilationFailedConfig"
  runtime_failed,  // "RuntimeFailedConfig" (or any other failure text Kernel Tuner stored)
  not_in_space,    // not cached, so it violates the constraints or uses values outside the lists
};
const char* to_string(ReplayOutcome o);

struct ReplayParameter {
  std::string name;
  std::vector<jobs::ParamValue> values;  // in the order of the cache's tune_params
};

struct ReplayEntry {
  jobs::Genome genome;
  ReplayOutcome outcome = ReplayOutcome::measured;
  double time_ms = 0.0;            // the cache's "time" (mean of samples); +inf unless measured
  std::vector<double> samples_ms;  // the cache's "times"; may be empty
  std::string failure;             // the failure text as cached, when not measured
};

struct ReplayLookup {
  ReplayOutcome outcome = ReplayOutcome::not_in_space;
  double time_ms = 0.0;                // +inf unless measured
  const ReplayEntry* entry = nullptr;  // null when not in the space
};

class ReplaySpace {
 public:
  // Throws std::runtime_error naming the file and the key when it cannot be read or is not a Kernel Tuner
  // cache; when space_json is given, also when its parameters disagree with the cache's.
  static ReplaySpace load(const std::filesystem::path& cache_path,
                          const std::optional<std::filesystem::path>& space_json_path = std::nullopt);

  const std::string& device_name() const { return device_name_; }
  const std::string& kernel_name() const { return kernel_name_; }
  const std::filesystem::path& path() const { return path_; }
  const std::vector<ReplayParameter>& parameters() const { return parameters_; }
  const std::vector<ReplayEntry>& entries() const { return entries_; }
  const std::vector<std::string>& constraints() const { return constraints_; }  // informational only
  std::size_t failed_count() const;
  double best_time_ms() const;  // fastest measured time in the whole space; +inf when none was measured

  ReplayLookup lookup(const jobs::Genome& g) const;
  bool contains(const jobs::Genome& g) const { return index_.count(g.to_text()) != 0; }

 private:
  std::filesystem::path path_;
  std::string device_name_;
  std::string kernel_name_;
  std::vector<ReplayParameter> parameters_;
  std::vector<ReplayEntry> entries_;
  std::vector<std::string> constraints_;
  std::unordered_map<std::string, std::size_t> index_;  // genome text -> entry

  friend class ReplaySpaceReader;
};

}  // namespace kforge::kernels
