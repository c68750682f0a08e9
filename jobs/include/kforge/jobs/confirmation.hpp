#pragma once
// DIR/confirmation.h5: the best candidates of each target re-timed against the baselines over paired rounds,
// with bootstrap intervals on each speedup (docs/archive-schema.md, "Confirmation file").
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/record.hpp"

namespace kforge::jobs {

// Version of the /confirmation group's layout (root attribute confirmation_schema_version); bumped when a
// column changes meaning or goes away. Independent of kSchemaVersion, which covers provenance and binding.
inline constexpr int kConfirmationSchemaVersion = 1;

// "baseline:" + NAME in ConfirmationSample::subject; a candidate is named by its id.
inline constexpr const char* kBaselineSubjectPrefix = "baseline:";

// One figure of one round: the median time of a candidate or a baseline in that round's evaluation.
struct ConfirmationSample {
  std::int32_t island = 0;
  std::string target;
  std::int32_t round = 0;
  std::string subject;    // candidate id, or "baseline:NAME"
  std::string status;     // the candidate's record status that round ("ok", "timeout", ...); "ok" for baselines
  double time_ms = kNaN;  // NaN when the round produced no time for it
  bool operator==(const ConfirmationSample&) const = default;
};

// One candidate against one baseline: speedup = baseline time / candidate time, paired per round.
struct ConfirmedSpeedup {
  std::int32_t island = 0;
  std::string target;
  std::int32_t rank = 0;  // 1 = the target's best candidate in the campaign
  std::string candidate_id;
  std::string params;
  std::string baseline;
  std::int32_t rounds = 0;  // rounds in which both were timed (the paired samples)
  double speedup = kNaN;    // geometric mean of the per-round ratios
  double ci_low = kNaN;     // bootstrap percentile interval of the same statistic
  double ci_high = kNaN;
  double candidate_ms = kNaN;  // medians over the paired rounds
  double baseline_ms = kNaN;
  double campaign_speedup = kNaN;  // what the campaign measured once (its record's time vs this baseline's median)
  std::string verdict;  // "faster" (interval above 1), "slower" (below 1), "not_faster" (includes 1 or too few rounds)
  bool operator==(const ConfirmedSpeedup&) const = default;
};

struct Confirmation {
  Provenance provenance;
  std::int32_t generations = 0;  // the campaign's finished generations when it was confirmed
  std::int32_t top = 0;          // candidates per target asked for
  std::int32_t rounds = 0;
  double confidence = 0.95;
  std::int32_t resamples = 0;  // bootstrap resamples
  std::uint64_t seed = 0;      // seeds the round orders, the rounds' inputs and the bootstrap
  std::vector<ConfirmedSpeedup> speedups;
  std::vector<ConfirmationSample> samples;
};

inline constexpr const char* kConfirmationFile = "confirmation.h5";

// Replaces `path` atomically (temp name, fsync, rename): a new confirmation supersedes the last one whole.
void write_confirmation(const std::filesystem::path& path, const Confirmation& c);
// Throws std::runtime_error starting with the path when missing, damaged, not a confirmation file or not of the
// campaign `expected_campaign_id` (when non-empty).
Confirmation read_confirmation(const std::filesystem::path& path, const std::string& expected_campaign_id = "");

}  // namespace kforge::jobs
