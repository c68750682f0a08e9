#pragma once
// Resource figures from ptxas's verbose output, which NVRTC returns in the program log when compiled with
// "-Xptxas=-v" (CUDA 13: "--ptxas-options=-v" works too). Per entry function ptxas prints
//   ptxas info    : Compiling entry function 'kforge_gemm' for 'sm_90a'
//   ptxas info    : Function properties for kforge_gemm
//   ptxas         .     272 bytes stack frame, 488 bytes spill stores, 492 bytes spill loads
//   ptxas info    : Used 32 registers, used 1 barriers, 272 bytes cumulative stack size, 4096 bytes smem
// and it prints these lines even when it then rejects the kernel (e.g. too much shared memory), so a failed
// compile still says why.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::kernels::cuda {

struct KernelFigures {
  std::string entry;            // the entry function's name
  std::int32_t registers = -1;  // per thread
  std::int64_t static_shared_bytes = 0;
  std::int64_t stack_frame_bytes = 0;  // local memory per thread: spill slots plus local arrays
  std::int64_t spill_store_bytes = 0;
  std::int64_t spill_load_bytes = 0;
};

// Every entry function the log describes, in order of appearance.
std::vector<KernelFigures> parse_ptxas_figures(std::string_view log);

// The figures of `entry`, or nullopt when the log has no "Used N registers" line for it.
std::optional<KernelFigures> figures_for_entry(std::string_view log, std::string_view entry);

}  // namespace kforge::kernels::cuda
