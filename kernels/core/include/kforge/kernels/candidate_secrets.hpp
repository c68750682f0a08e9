#pragma once
// Secrets of the harness that a candidate process must not inherit: it is forked from the harness, so it starts
// with a copy of the harness's memory. Every candidate process (kernels/host/sandbox/candidate_process.hpp) overwrites
// the registered regions with zeros before any of the candidate's code is loaded.
#include <cstddef>

namespace kforge::kernels {

// Registers a region (at most 8 are kept; the call is a no-op for a region already registered).
void forget_in_candidate_processes(void* data, std::size_t bytes);

}  // namespace kforge::kernels
