#pragma once
// Whether a record's timing met the task's target_spread (EvalSettings), and the evidence line when it did not.
#include <string>

#include "kforge/jobs/record.hpp"

namespace kforge::mpi_eval {

// True for an ok record with at least two samples whose interquartile spread, (q3 - q1) / median
// (EvalRecord::time_spread_iqr), is not under target_spread. The timing loop (kernels/core/include/kforge/kernels/
// timing.hpp, sample_calls) stops as soon as min_repeats samples are under the target by (max - min) / median, so
// such a record ran out of repeats or time while the middle half of its samples still disagreed: its median is
// less trustworthy, typically because something else ran on the same cores for a while. One outlier among many
// samples, which (max - min) alone would call noise, does not flag it.
bool misses_target_spread(const jobs::EvalRecord& r, double target_spread);

// Sets r.timing_noisy from misses_target_spread and, when noisy, appends a line saying so to r.evidence.
void judge_timing(jobs::EvalRecord& r, double target_spread);

}  // namespace kforge::mpi_eval
