#pragma once
// Hardware targets the cuda backend compiles for: the island's target name -> NVRTC architecture and the
// per-block / per-SM limits a candidate is checked against before it gets any GPU time.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::kernels::cuda {

struct ArchSpec {
  std::string target;                 // island target name: "hopper", "blackwell"
  std::string arch;                   // NVRTC -arch value: "sm_90a", "sm_100a"
  std::int64_t max_shared_per_block;  // static + dynamic, with the opt-in attribute (bytes)
  std::int64_t max_static_shared;     // statically sized __shared__ arrays (bytes); more needs dynamic smem
  std::int64_t registers_per_sm;      // 32-bit registers in one SM's register file
  int max_threads_per_block;
  int max_registers_per_thread;
  int register_alloc_unit;  // registers per thread are allocated in multiples of this
  // Physical ceilings of the fastest part of the family (a faster measurement means skipped work).
  double peak_bf16_flop_per_s;
  double peak_dram_bytes_per_s;
};

// Throws std::invalid_argument listing the known targets when `target` is unknown. Accepts the arch names too
// ("sm_90a" finds hopper).
const ArchSpec& arch_for_target(std::string_view target);
const std::vector<ArchSpec>& known_archs();

}  // namespace kforge::kernels::cuda
