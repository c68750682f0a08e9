#pragma once
// The physical floor of an engine's time (docs/isolation.md, "Engines"): whatever an engine does, every step must
// read every weight once and, per sequence, the KV cache positions it attends over (or its KDA state). Those bytes
// divided by the node's own measured memory bandwidth are the least time a run can take; a run faster than that
// (beyond a margin for measurement noise) skipped work or cheated the clock.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/serving_loop.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "kforge/jobs/engine_spec.hpp"

namespace kforge::kernels::engine {

// A run is beyond the floor when its time is below floor / kFloorMargin: a measured read bandwidth is what a
// streaming read reaches, and no engine streams better than that by half again.
inline constexpr double kFloorMargin = 1.5;

// Bytes of weights one step reads at least: all of them, but an untied model's embedding table, of which a step
// reads only its tokens' rows; matrices at the declared precision's size (weight_precision.hpp), vectors fp32.
double weight_bytes_per_step(const jobs::ModelSpec& model, WeightPrecision precision);

// Bytes `run` read at least: weight_bytes_per_step per step, plus per sequence of a step, in every attention layer
// its keys and values at every position up to its last (fp32; bf16 for an engine of bf16 activations, whose KV cache
// may hold bf16: docs/engines.md, "Activations"), and in every KDA layer its heads x D x D state (fp32).
double least_bytes_read(const jobs::ModelSpec& model, const ServingResult& run, WeightPrecision precision,
                        ActivationPrecision activations = ActivationPrecision::fp32);

// Read bandwidth of this node for a working set of `bytes` (capped at 256 MiB: past the caches it is the memory's),
// in bytes/s: the best of several passes of `threads` threads each reading its part of one buffer. A set that fits
// the caches reads at the caches' speed, as the engine's weights then do too.
double measure_read_bandwidth(std::size_t bytes, int threads);

// The CPUs this process may run on (its affinity mask), at least 1.
int usable_cpus();

// "" when each run of `runs` took at least its floor (least_bytes_read / bytes_per_s) divided by kFloorMargin;
// else evidence naming the run, its time, its floor and the bandwidth it would need, beside every run's time.
// bytes_per_s <= 0 means no floor is known (a fake device): always "".
std::string beyond_physical_floor(const jobs::ModelSpec& model, std::span<const ServingResult> runs, double bytes_per_s,
                                  WeightPrecision precision,
                                  ActivationPrecision activations = ActivationPrecision::fp32);

// The fraction of the node's bandwidth `run` used (floor time / run time), 0 when unknown.
double bandwidth_fraction(const jobs::ModelSpec& model, const ServingResult& run, double bytes_per_s,
                          WeightPrecision precision, ActivationPrecision activations = ActivationPrecision::fp32);

}  // namespace kforge::kernels::engine
