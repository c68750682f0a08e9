#pragma once
// resource_reject before any GPU time: what a candidate asks of one SM, against the architecture's limits.
// Two moments: before NVRTC (the launch configuration alone: threads and dynamic shared memory) and after it
// (ptxas's figures: spills, static shared memory, registers x threads).
#include <cstdint>
#include <optional>
#include <string>

#include "arch.hpp"
#include "family.hpp"
#include "ptxas_log.hpp"

namespace kforge::kernels::cuda {

struct ResourceLimits {
  // Spill store bytes per thread a candidate may have (ptxas "bytes spill stores"). 0: any spill rejects.
  std::int64_t max_spill_bytes = 0;
};

// Why the launch configuration cannot run on `arch` (threads per block, dynamic shared memory), or nullopt.
std::optional<std::string> launch_rejection(const LaunchConfig& launch, const ArchSpec& arch);

// Why the compiled kernel cannot run as launched, or nullopt. Registers count as allocated: rounded up to the
// allocation unit, times the threads of the block rounded up to whole warps.
std::optional<std::string> compiled_rejection(const KernelFigures& figures, const LaunchConfig& launch,
                                              const ArchSpec& arch, const ResourceLimits& limits);

// One line for the log: "sm_90a kforge_gemm: 128 registers/thread, 0 B static + 56832 B dynamic smem, ...".
std::string figures_text(const KernelFigures& figures, const LaunchConfig& launch, const ArchSpec& arch);

}  // namespace kforge::kernels::cuda
