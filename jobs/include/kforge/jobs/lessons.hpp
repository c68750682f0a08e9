#pragma once
// What a campaign learns as it runs (docs/archive-schema.md, "What the campaign learnt"):
// stored in every generation file, cumulative up to that generation, so the newest file holds the whole story.
#include <cstdint>
#include <string>
#include <vector>

#include "kforge/jobs/record.hpp"

namespace kforge::jobs {

// One variation operator on one island in one generation: the share of the offspring it was given and what
// its children did.
struct OperatorWeight {
  std::int32_t island = 0;
  std::string op;             // "mutation", "crossover", "immigrant", "agent:<name>"
  double weight = 0.0;        // share of the island's offspring planned for this operator, 0..1
  std::int32_t children = 0;  // evaluated children of this generation
  std::int32_t ok = 0;
  std::int32_t improved = 0;  // faster than their best parent (parentless: than the island's median survivor)
  bool operator==(const OperatorWeight&) const = default;
};

// How well a search strategy's model foresaw what it proposed on one island, after a generation (issue 32): the
// Spearman rank correlation of the log time it predicted for each configuration it chose and the time measured.
struct ModelQualityRow {
  std::int32_t island = 0;
  std::string target;
  double rank_correlation = 0.0;  // -1..1
  std::int32_t predictions = 0;   // predicted-and-measured pairs behind it
  bool operator==(const ModelQualityRow&) const = default;
};

// The effect of one parameter value over every evaluation so far.
struct ParameterLesson {
  std::string parameter;
  std::string value;  // the value as the genome writes it
  std::int32_t evaluated = 0;
  std::int32_t failed = 0;  // not ok, for any reason
  double median_ms = kNaN;  // median time of its ok evaluations
  double best_ms = kNaN;
  double relative_median = kNaN;  // median_ms / the median of all ok evaluations: < 1 is faster than typical
  // Its evidence, as `kforge report`'s parameter effects: the geometric mean of its ok evaluations' times over
  // their target's median, and that figure's 95% percentile bootstrap interval (NaN below 2 ok evaluations: one
  // run has no spread). Older files lack these columns and read back NaN.
  double relative = kNaN;
  double ci_low = kNaN;
  double ci_high = kNaN;
  bool operator==(const ParameterLesson&) const;
};

struct OperatorLesson {
  std::string op;
  std::int32_t children = 0;
  std::int32_t ok = 0;
  std::int32_t improved = 0;
  bool operator==(const OperatorLesson&) const = default;
};

// Failures grouped by status and the first line of their evidence (numbers stripped, so that one cause with
// different values is one group).
struct FailureLesson {
  std::string status;
  std::string cause;
  std::int32_t count = 0;
  std::string example_id;  // one candidate that failed this way
  bool operator==(const FailureLesson&) const = default;
};

struct Lessons {
  std::vector<ParameterLesson> parameters;
  std::vector<OperatorLesson> operators;
  std::vector<FailureLesson> failures;
  std::vector<std::string> summary;  // the sentences agents read in their brief
  bool operator==(const Lessons&) const = default;
};

// An input or shape that caught a wrong candidate; every later candidate of the campaign is checked on it too.
struct ValidationCase {
  std::string text;  // the family's case text, e.g. "M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=123"
  std::int32_t added_generation = 0;
  std::string caught_id;      // the candidate it caught first
  std::string caught_status;  // what that candidate was recorded as
  bool operator==(const ValidationCase&) const = default;
};

}  // namespace kforge::jobs
