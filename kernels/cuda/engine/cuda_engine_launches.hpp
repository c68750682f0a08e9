#pragma once
// The grid and block of each kernel of the cuda engine module, as the launch plan (cuda_engine_plan.hpp) launches
// it, and every kernel's launch at the largest step an engine is sized for: what the compile stage checks against
// the architecture's limits (threads, registers x threads, shared memory) before any GPU time.
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuda_engine_params.hpp"
#include "family.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/jobs/engine_spec.hpp"

namespace kforge::kernels::cuda::engine {

using kernels::engine::EngineSizes;

LaunchConfig rows_launch(const CudaEngineParams& p, std::int64_t rows);             // one block per row
LaunchConfig elementwise_launch(const CudaEngineParams& p, std::int64_t elements);  // one thread per element
LaunchConfig gemm_launch(const CudaEngineParams& p, std::int64_t m, std::int64_t n);
LaunchConfig gemv_launch(const CudaEngineParams& p, std::int64_t n);  // one warp per output column
LaunchConfig gemm_tc_launch(std::int64_t m, std::int64_t n);          // 64 x 64 tiles, 128 threads
LaunchConfig attention_launch(const CudaEngineParams& p, std::int64_t tokens, std::int64_t heads);
// kf_attention_tiles: tokens per block (as many as fill its 16 rows of (token, query head)), and its grid.
int qtile_queries(const jobs::ModelSpec& model);
LaunchConfig attention_tiles_launch(const CudaEngineParams& p, std::int64_t tokens, const jobs::ModelSpec& model);
LaunchConfig kda_launch(std::int64_t sequences, std::int64_t heads, std::int64_t head_dim);

struct KernelLaunch {
  std::string_view kernel;
  LaunchConfig launch;
};
std::vector<KernelLaunch> engine_launches(const jobs::ModelSpec& model, const CudaEngineParams& params,
                                          const EngineSizes& sizes);

}  // namespace kforge::kernels::cuda::engine
