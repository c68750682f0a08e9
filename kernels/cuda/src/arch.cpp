#include "arch.hpp"

#include <stdexcept>

namespace kforge::kernels::cuda {
namespace {

constexpr std::int64_t kKiB = 1024;

// Limits from the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" (9.0, 10.0):
// 227 KiB of shared memory per block with cudaFuncAttributeMaxDynamicSharedMemorySize, 48 KiB of it static,
// 64 Ki registers per SM, 1024 threads and 255 registers per thread, registers allocated per warp in units of
// 256 (= 8 per thread). Ceilings: H200 SXM (989 TFLOP/s bf16 dense, 4.8 TB/s), B200 (2.25 PFLOP/s, 8 TB/s).
std::vector<ArchSpec> make_table() {
  return {
      {"hopper", "sm_90a", 227 * kKiB, 48 * kKiB, 65536, 1024, 255, 8, 989e12, 4.8e12},
      {"blackwell", "sm_100a", 227 * kKiB, 48 * kKiB, 65536, 1024, 255, 8, 2250e12, 8.0e12},
  };
}

}  // namespace

const std::vector<ArchSpec>& known_archs() {
  static const std::vector<ArchSpec> table = make_table();
  return table;
}

const ArchSpec& arch_for_target(std::string_view target) {
  std::string names;
  for (const ArchSpec& a : known_archs()) {
    if (a.target == target || a.arch == target) return a;
    names += (names.empty() ? "" : ", ") + a.target + " (" + a.arch + ")";
  }
  throw std::invalid_argument("cuda backend: unknown hardware target \"" + std::string(target) +
                              "\"; known targets: " + names);
}

}  // namespace kforge::kernels::cuda
