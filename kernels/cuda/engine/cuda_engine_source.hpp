#pragma once
// The cuda engine's module (docs/engines.md, "The cuda engine"): one CUDA C++ source that NVRTC compiles for
// sm_90a / sm_100a, defining the engine's fp32 kernels with a fixed ABI (the names and arguments below). The
// harness owns the device memory, the launch plan of every step (cuda_engine_plan.hpp), the clock and the verdict;
// the module's kernels do the arithmetic. A genome renders the template; an agent may return its own module with
// the same kernels.
//
// The harness defines the model's head dimension on NVRTC's command line (-DKF_HEAD_DIM=D): per-thread arrays of
// the attention and KDA kernels are sized by it. Every other size is a kernel argument.
//
// The source is plain CUDA C++ with no header, and inline PTX only for kf_gemm_tc's mma.sync (under
// #ifndef KF_EMULATION): the same text also compiles as host C++ under the CPU emulation the tests use
// (tests/kernels_cuda/emulator/, which provides mma_bf16 with the PTX ISA's fragments) and runs without a GPU.
#include <array>
#include <string>
#include <string_view>

#include "cuda_engine_params.hpp"

namespace kforge::kernels::cuda::engine {

// The kernels every engine module defines (extern "C" __global__), in the order of the docs.
inline constexpr std::array<std::string_view, 9> kEngineKernels = {"kf_embed",      "kf_rmsnorm",   "kf_gemm",
                                                                   "kf_rope_cache", "kf_attention", "kf_kda",
                                                                   "kf_silu_mul",   "kf_add",       "kf_gather_rows"};
// Kernels a genome may not use (GEMV_ROWS 0, ATTN_GROUP 0, ATTN_QTILE 0, GEMM_TC 0): a module without them is
// complete; the compile stage requires each one the genome launches (cuda_engine_launches.hpp). kf_to_bf16 is the
// cublas_bf16 baseline's, whose module is always the template's.
inline constexpr std::array<std::string_view, 5> kOptionalEngineKernels = {
    "kf_gemv", "kf_attention_group", "kf_attention_tiles", "kf_gemm_tc", "kf_to_bf16"};

std::string render_cuda_engine_source(const CudaEngineParams& p);

// The NVRTC option that gives the module the model's head dimension.
std::string head_dim_option(std::int64_t head_dim);

// Threads of a kf_kda block for head dimension D: one per value column, rounded up to whole warps.
int kda_threads(std::int64_t head_dim);

namespace text {
const char* engine_common();           // warp and block reductions, the KV cache's row of (slot, position)
const char* engine_dense();            // kf_embed, kf_rmsnorm, kf_gemm, kf_silu_mul, kf_add, kf_gather_rows
const char* engine_gemv();             // kf_gemv (GEMV_NORM, GEMV_SILU)
const char* engine_gemm_tc();          // kf_gemm_tc (GEMM_TC)
const char* engine_mixers();           // kf_rope_cache, kf_attention, kf_kda
const char* engine_attention_tiles();  // kf_attention_tiles (ATTN_QTILE)
}  // namespace text

}  // namespace kforge::kernels::cuda::engine
