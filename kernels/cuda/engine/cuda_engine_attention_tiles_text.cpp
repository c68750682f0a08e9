// The cuda engine module's query-tiled attention (cuda_engine_source.hpp, gene ATTN_QTILE): FlashAttention's order
// of work for the steps that feed prompts, on the fp32 SIMT path of the other kernels.
#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine::text {

const char* engine_attention_tiles() {
  return R"CUDA(
// Causal grouped-query attention for a tile of consecutive tokens of the step (block (tile, g): `queries` tokens
// from blockIdx.x * queries, every query head of KV head g), the steps that feed prompts (several tokens of one
// sequence): each tile of QTILE_KEYS cached positions is read into shared memory once for QTILE_ROWS (token, head)
// rows, where kf_attention_group reads it once per token and kf_attention once per token and head. A row's
// positions past its own are masked, so the tokens of a prompt chunk share the keys they have in common. Tokens of
// different sequences in one tile (a step lays its sequences out one after another) are served one sequence after
// the other, each over its own slot's cache. Each row keeps its own online softmax; each thread owns (row,
// dimension) pairs. queries * (heads / kv_heads) <= QTILE_ROWS (the plan's choice, qtile_queries).
#define QTILE_ROWS 16
#define QTILE_KEYS (3072 / KF_D > 192 ? 192 : 3072 / KF_D < 8 ? 8 : 3072 / KF_D) /* keys, values, scores: < 42 KiB */
#define QTILE_PER ((QTILE_ROWS * KF_D + ATTN_THREADS - 1) / ATTN_THREADS)
extern "C" __global__ void __launch_bounds__(ATTN_THREADS)
kf_attention_tiles(const float* __restrict__ qkv, int ld, float* __restrict__ out, int heads, int kv_heads,
                   const int* __restrict__ tok_slot, const int* __restrict__ tok_pos,
                   const kv_t* __restrict__ k_cache, const kv_t* __restrict__ v_cache, int context,
                   const int* __restrict__ block_table, int table_width, float scale, int queries, int tokens) {
#if ATTN_QTILE  // the body only where the genome launches it (the kernel stays, so every module defines the same)
  __shared__ float q[QTILE_ROWS][KF_D];
  __shared__ float ks[QTILE_KEYS][KF_D + 1];
  __shared__ float vs[QTILE_KEYS][KF_D];
  __shared__ float p[QTILE_ROWS][QTILE_KEYS];
  __shared__ long long rows[QTILE_KEYS];
  __shared__ float m[QTILE_ROWS], l[QTILE_ROWS], correction[QTILE_ROWS];
  const int group = heads / kv_heads, g = blockIdx.y, t0 = blockIdx.x * queries;
  const int count = min(queries, tokens - t0) * group;  // rows r: token t0 + r / group, head g * group + r % group
  for (int e = threadIdx.x; e < count * KF_D; e += blockDim.x) {
    const int r = e / KF_D, d = e % KF_D;
    q[r][d] = qkv[(long long)(t0 + r / group) * ld + (g * group + r % group) * KF_D + d] * scale;
  }
  if (threadIdx.x < count) {
    m[threadIdx.x] = KF_NEG_BIG;
    l[threadIdx.x] = 0.f;
  }
  float acc[QTILE_PER];
#pragma unroll
  for (int j = 0; j < QTILE_PER; ++j) acc[j] = 0.f;
  for (int first = 0; first < count;) {  // the rows of one sequence: [first, end)
    const int slot = tok_slot[t0 + first / group];
    int end = first, last = 0;
    while (end < count && tok_slot[t0 + end / group] == slot) {
      last = max(last, tok_pos[t0 + end / group]);
      end += group;
    }
    for (int s0 = 0; s0 <= last; s0 += QTILE_KEYS) {
      const int n = min(QTILE_KEYS, last + 1 - s0);
      __syncthreads();  // q, m and l are written; the previous tile's keys, values and weights are no longer read
      // The tile's keys and values as kf_attention_group loads them (written out again: the same loads in a shared
      // __device__ function took kf_attention_group from 124 to 202 registers on sm_100a at head_dim 128 and 32
      // threads, ptxas 13.0).
      for (int i = threadIdx.x; i < n; i += blockDim.x)
        rows[i] = (cache_row(slot, s0 + i, context, block_table, table_width) * kv_heads + g) * KF_D;
      __syncthreads();
      for (int e = threadIdx.x; e < n * KF_D; e += blockDim.x) {
        const int i = e / KF_D, d = e % KF_D;
        ks[i][d] = kv_get(k_cache[rows[i] + d]);
        vs[i][d] = kv_get(v_cache[rows[i] + d]);
      }
      __syncthreads();
      for (int e = threadIdx.x; e < (end - first) * n; e += blockDim.x) {
        const int r = first + e / n, i = e % n;
        float dot = 0.f;
        for (int d = 0; d < KF_D; ++d) dot += q[r][d] * ks[i][d];
        p[r][i] = dot;
      }
      __syncthreads();
      if (threadIdx.x >= first && threadIdx.x < end) {  // each row's online softmax over its unmasked positions
        const int r = threadIdx.x, seen = min(n, tok_pos[t0 + r / group] + 1 - s0);  // may be <= 0: all masked
        online_softmax_tile(p[r], n, seen, m[r], l[r], correction[r]);
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < QTILE_PER; ++j) {
        const int e = threadIdx.x + j * ATTN_THREADS, r = e / KF_D, d = e % KF_D;
        if (r < first || r >= end) continue;
        float a = acc[j] * correction[r];
        for (int i = 0; i < n; ++i) a += p[r][i] * vs[i][d];
        acc[j] = a;
      }
    }
    first = end;
  }
#pragma unroll
  for (int j = 0; j < QTILE_PER; ++j) {
    const int e = threadIdx.x + j * ATTN_THREADS, r = e / KF_D;
    if (r < count) out[((long long)(t0 + r / group) * heads + g * group + r % group) * KF_D + e % KF_D] = acc[j] / l[r];
  }
#endif
}
)CUDA";
}

}  // namespace kforge::kernels::cuda::engine::text
