// Launch configurations of the cuda engine module's kernels (cuda_engine_plan.hpp, engine_launches): one place for
// the grid and block of each kernel, used by the plan for every step and by the compile stage for its checks.
#include "cuda_engine_launches.hpp"

#include <algorithm>

#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

unsigned whole(std::int64_t n) { return static_cast<unsigned>(n < 1 ? 1 : n); }
unsigned blocks_of(std::int64_t n, std::int64_t per) { return whole((n + per - 1) / per); }

}  // namespace

LaunchConfig rows_launch(const CudaEngineParams& p, std::int64_t rows) {
  LaunchConfig l;
  l.grid = {whole(rows), 1, 1};
  l.block = {static_cast<unsigned>(p.NORM_THREADS), 1, 1};
  return l;
}

LaunchConfig elementwise_launch(const CudaEngineParams& p, std::int64_t elements) {
  LaunchConfig l;
  l.grid = {blocks_of(elements, p.NORM_THREADS), 1, 1};
  l.block = {static_cast<unsigned>(p.NORM_THREADS), 1, 1};
  return l;
}

LaunchConfig gemm_launch(const CudaEngineParams& p, std::int64_t m, std::int64_t n) {
  LaunchConfig l;
  l.grid = {blocks_of(n, p.BN), blocks_of(m, p.BM), static_cast<unsigned>(p.SPLIT_K)};
  l.block = {static_cast<unsigned>(p.gemm_threads()), 1, 1};
  return l;
}

LaunchConfig gemv_launch(const CudaEngineParams& p, std::int64_t n) {
  LaunchConfig l;
  l.grid = {blocks_of(n, p.GEMV_WARPS), 1, 1};
  l.block = {static_cast<unsigned>(p.GEMV_WARPS * 32), 1, 1};
  return l;
}

LaunchConfig gemm_tc_launch(std::int64_t m, std::int64_t n) {
  LaunchConfig l;
  l.grid = {blocks_of(n, 64), blocks_of(m, 64), 1};
  l.block = {128, 1, 1};
  return l;
}

LaunchConfig attention_launch(const CudaEngineParams& p, std::int64_t tokens, std::int64_t heads) {
  LaunchConfig l;
  l.grid = {whole(tokens), whole(heads), 1};
  l.block = {static_cast<unsigned>(p.ATTN_THREADS), 1, 1};
  return l;
}

int qtile_queries(const jobs::ModelSpec& model) {
  const std::int64_t group = model.kv_heads > 0 ? model.heads / model.kv_heads : 1;
  return static_cast<int>(std::max<std::int64_t>(1, 16 / std::max<std::int64_t>(1, group)));
}

LaunchConfig attention_tiles_launch(const CudaEngineParams& p, std::int64_t tokens, const jobs::ModelSpec& model) {
  LaunchConfig l;
  l.grid = {blocks_of(tokens, qtile_queries(model)), whole(model.kv_heads), 1};
  l.block = {static_cast<unsigned>(p.ATTN_THREADS), 1, 1};
  return l;
}

LaunchConfig kda_launch(std::int64_t sequences, std::int64_t heads, std::int64_t head_dim) {
  LaunchConfig l;
  l.grid = {whole(sequences), whole(heads), 1};
  l.block = {static_cast<unsigned>(kda_threads(head_dim)), 1, 1};
  return l;
}

std::vector<KernelLaunch> engine_launches(const jobs::ModelSpec& model, const CudaEngineParams& p,
                                          const EngineSizes& sizes) {
  const std::int64_t N = sizes.most_tokens, S = sizes.most_sequences, H = model.hidden;
  const std::int64_t widest =
      std::max({(model.heads + 2 * model.kv_heads) * model.head_dim, 4 * model.heads * model.head_dim + model.heads,
                2 * model.mlp_hidden, model.vocab, H});
  std::vector<KernelLaunch> out = {{"kf_embed", rows_launch(p, N)},
                                   {"kf_rmsnorm", rows_launch(p, N)},
                                   {"kf_gemm", gemm_launch(p, N, widest)},
                                   {"kf_rope_cache", rows_launch(p, N)},
                                   {"kf_attention", attention_launch(p, N, model.heads)},
                                   {"kf_kda", kda_launch(S, model.heads, model.head_dim)},
                                   {"kf_silu_mul", rows_launch(p, N)},
                                   {"kf_add", elementwise_launch(p, N * H)},
                                   {"kf_gather_rows", rows_launch(p, S)}};
  if (p.GEMV_ROWS > 0) out.push_back({"kf_gemv", gemv_launch(p, widest)});  // then the module must define it
  if (p.group_attention_for(model.heads, model.kv_heads))
    out.push_back({"kf_attention_group", attention_launch(p, N, model.kv_heads)});
  if (p.tensor_cores()) out.push_back({"kf_gemm_tc", gemm_tc_launch(N, widest)});
  if (p.tiled_attention_for(model.heads, model.kv_heads))
    out.push_back({"kf_attention_tiles", attention_tiles_launch(p, N, model)});
  return out;
}

}  // namespace kforge::kernels::cuda::engine
