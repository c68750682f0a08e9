#pragma once
// The serving trace of an engine campaign (docs/engines.md, "Serving"): the requests a candidate engine serves,
// generated deterministically from the workload's seed, so every candidate and every baseline of a campaign serves
// exactly the same prompts with the same lengths and arrival times.
#include <cstdint>
#include <vector>

#include "kforge/jobs/engine_spec.hpp"

namespace kforge::kernels::engine {

struct TraceRequest {
  std::vector<std::int32_t> prompt;  // tokens, uniform in [0, vocab)
  std::int64_t output_tokens = 0;    // tokens to generate (the first comes from the prompt's last logits)
  double arrival_ms = 0.0;           // on the serving loop's virtual clock
};

struct WorkloadTrace {
  std::vector<TraceRequest> requests;  // in arrival order
  // Requests the serving loop keeps in flight: the workload's concurrency in a closed loop; 0 in an open loop
  // (Poisson arrivals), where the loop admits every arrived request while a slot is free.
  std::int64_t concurrency = 1;
  bool open_loop = false;
  std::int64_t max_context() const;  // the longest prompt + output of any request
};

// Throws std::invalid_argument for a workload no trace can come from (no requests, empty or inverted length
// ranges, concurrency < 1 in a closed loop, negative arrival rate) or vocab < 1.
WorkloadTrace make_trace(const jobs::WorkloadSpec& workload, std::int64_t vocab);

// Uniform integer in [lo, hi] and uniform double in [0, 1) from a 64-bit generator's raw output: the same on every
// standard library (std::uniform_int_distribution is not), so a trace is the same wherever it is generated.
std::int64_t uniform_in(std::uint64_t bits, std::int64_t lo, std::int64_t hi);
double unit_interval(std::uint64_t bits);

}  // namespace kforge::kernels::engine
