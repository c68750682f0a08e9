#pragma once
// The evaluation record: one per candidate per target (ARCHITECTURE.md, "Evaluation record").
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kforge/jobs/status.hpp"

namespace kforge::jobs {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A named figure of a candidate beyond its time, with its unit: an engine's serving figures ("output_tokens_per_s",
// "ttft_p99_ms", "peak_memory_mb") and where its time went ("op_share.attention"). Stored in the shard's metrics
// table (docs/archive-schema.md).
struct Metric {
  std::string name;
  std::string unit;  // "tokens/s", "ms", "MiB", "1" (a fraction)
  double value = kNaN;
  bool operator==(const Metric&) const;  // NaN == NaN
};

struct EvalRecord {
  // identity and lineage
  std::string candidate_id;
  std::string family;
  std::string backend;
  std::string params;                // Genome::to_text()
  std::vector<std::string> parents;  // parent ids
  std::string op;                    // operator that made the candidate
  std::int32_t generation = 0;
  std::int32_t island = 0;
  std::string target;  // hardware target / island name ("host", "hopper", ...)

  Status status = Status::infra_error;

  // timing of the candidate's kernel call, milliseconds
  double time_median_ms = kNaN;
  double time_min_ms = kNaN;
  double time_spread_rel = kNaN;  // (max - min) / median over the kept samples, dimensionless
  // (q3 - q1) / median over the same samples (jobs::interquartile_spread_rel): the spread the noise flag judges,
  // robust to one outlier. Archives written before it hold none; readers compute it from their samples.
  double time_spread_iqr = kNaN;
  std::int32_t sample_count = 0;
  std::vector<double> samples_ms;  // every timed sample, ms
  // The middle half of the samples spread at least the task's target_spread (time_spread_iqr): the median is
  // less trustworthy, e.g. because something else ran on the same cores for a while (timing_verdict.hpp).
  bool timing_noisy = false;

  double speedup = kNaN;  // family baseline ("reference" baseline) median / this median

  // correctness against the family reference
  double max_abs_error = kNaN;
  double max_rel_error = kNaN;

  // compile figures
  double compile_ms = kNaN;
  std::int32_t registers = -1;     // per thread (GPU backends); -1 = not applicable
  std::int64_t shared_bytes = -1;  // static shared memory, bytes
  std::int64_t spill_bytes = -1;   // local memory / spills, bytes

  // where and when it ran
  std::string host;
  std::string gpu_model;  // "" on the host backend
  std::int64_t slurm_job_id = -1;
  std::int32_t slurm_array_task = -1;
  std::int32_t rank = -1;
  std::string evaluated_at;  // ISO-8601 UTC, e.g. 2026-12-02T10:14:42Z
  double harness_ms = kNaN;  // wall time the harness spent on this candidate, everything included

  std::string evidence;         // log excerpt a person needs to see why
  std::string failed_case;      // the family's text of the input/shape that caught a wrong result ("" if none)
  std::string source;           // the exact source text that was evaluated
  std::string ptx;              // cuda: the PTX its module was assembled from ("" for other backends)
  std::vector<Metric> metrics;  // engine figures (empty for kernels)

  bool operator==(const EvalRecord&) const;  // NaN == NaN for the measured fields
};

// A baseline timed in the same run as the candidates (e.g. "reference" = naive kernel, "openblas").
struct Baseline {
  std::string name;
  double time_median_ms = kNaN;
  double time_min_ms = kNaN;
  std::int32_t sample_count = 0;
  std::string host;
  std::int32_t task = -1;
  bool operator==(const Baseline&) const;
};

// Fitness for selection: median time of an ok record, +inf otherwise.
inline double fitness_ms(const EvalRecord& r) {
  return (r.status == Status::ok && std::isfinite(r.time_median_ms)) ? r.time_median_ms
                                                                     : std::numeric_limits<double>::infinity();
}

std::string iso8601_now();  // UTC, seconds resolution
std::string host_name();    // gethostname(), "unknown" if it fails

}  // namespace kforge::jobs
