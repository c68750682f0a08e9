#pragma once
// The limits of the sandboxed child that loads, verifies and times a candidate (or times a family's baselines):
// what the manifest's settings ask for, shaped by what the backend's child needs (kernels::Backend's capabilities).
#include "kforge/jobs/manifest.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/mpi_eval/sandbox.hpp"

namespace kforge::mpi_eval {

// The limits the settings ask for, as for a host backend (RLIMIT_AS = memory_limit_mb, no processes).
Limits limits_from(const jobs::EvalSettings& settings);

// Those limits for a child that runs `backend`: no address-space cap when it creates a device context (the driver
// reserves far more virtual address space than any memory_limit_mb; the backend bounds the device memory a candidate
// reserves), and processes allowed when the backend runs candidates' code in a confined process of its own.
Limits limits_for(const jobs::EvalSettings& settings, const kernels::Backend& backend);

}  // namespace kforge::mpi_eval
