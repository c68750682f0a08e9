#pragma once
// The cuda backend (ARCHITECTURE.md, "Backends"): NVRTC compiles a candidate for the island's target (hopper ->
// sm_90a, blackwell -> sm_100a) with no GPU needed, ptxas's figures decide resource_reject before any GPU
// time, and where a GPU exists the driver API (loaded at run time) loads, verifies and times the cubin.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::cuda {

struct CudaBackendOptions {
  // Compile cache root; empty = KFORGE_CUDA_CACHE, else $XDG_CACHE_HOME/kforge/cuda, else ~/.cache/kforge/cuda.
  std::filesystem::path cache_dir;
  // Register spill stores (bytes per thread) a candidate may have before it is a resource_reject.
  std::int64_t max_spill_bytes = 0;
};

// Throws std::invalid_argument listing the known families when `family` is not one of them.
std::unique_ptr<Backend> make_cuda_backend(std::string_view family, CudaBackendOptions options = {});

std::vector<std::string> cuda_family_names();  // "gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"

}  // namespace kforge::kernels::cuda
