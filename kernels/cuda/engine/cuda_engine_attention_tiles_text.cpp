// The cuda engine module's query-tiled attention (cuda_engine_source.hpp, gene ATTN_QTILE): FlashAttention's order
// of work for the steps that feed prompts, on the fp32 SIMT path of the other kernels, or with bf16 activations on
// tensor cores.
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
// With bf16 activations (KF_ACT_BF16, the activation contract of docs/engines.md) both products run on tensor cores
// (mma.sync m16n8k16, bf16 operands, fp32 sums): the tile's 16 rows are the m of S = Q K^T, each warp a share of its
// 8-key columns, and of O = P V, each warp a share of its 8-dimension columns, held in registers; q rounds to bf16
// as the block stages it and P as it becomes an operand (the cache holds bf16 already); the online softmax stays the
// fp32 one, row by row.
// Rows of another sequence of the tile take P = 0 and a correction of 1, keys past the tile's end P = 0 and V = 0,
// dimensions past KF_D zeros: every product of the 16 rows is made, and only a row's own keys reach it. There q, K
// and V sit in shared memory as bf16, each fragment one ldmatrix (V's transposed), and a tile's cached keys and
// values come by cp.async, 16 bytes a copy, where KF_D is a multiple of 8 (so every cached row is 16-byte aligned).
#define QTILE_ROWS 16
#if KF_ACT_BF16  // a multiple of 16 keys: the k of P V
#define QTILE_KEYS (6144 / KF_D > 192 ? 192 : 6144 / KF_D < 16 ? 16 : 6144 / KF_D / 16 * 16) /* bf16: 2x fp32's */
#define QTC_NT (((KF_D + 7) / 8 + ATTN_THREADS / 32 - 1) / (ATTN_THREADS / 32)) /* O's 8-column tiles per warp */
#define QTC_DP ((KF_D + 15) / 16 * 16) /* the k of S = Q K^T: KF_D in steps of 16, zeros past KF_D */
#define QTC_LD (QTC_DP + 8)            /* bf16 per shared row: 16-byte rows whose 8 ldmatrix rows hit 8 bank groups */
#else
#define QTILE_KEYS (3072 / KF_D > 192 ? 192 : 3072 / KF_D < 8 ? 8 : 3072 / KF_D) /* keys, values, scores: < 42 KiB */
#endif
#define QTILE_PER ((QTILE_ROWS * KF_D + ATTN_THREADS - 1) / ATTN_THREADS)
#if KF_ACT_BF16
// P's operand, as mma reads a pair of bf16 (the lower-indexed element in the low half): two consecutive keys'
// probabilities of a row (zeros for a row of another sequence or keys past the tile's n).
__device__ __forceinline__ unsigned qtc_pack(float lo, float hi) { return kf_bf16_bits(lo) | (kf_bf16_bits(hi) << 16); }
__device__ __forceinline__ unsigned qtc_weights(const float* row, int i, int n, bool own) {
  return qtc_pack(own && i < n ? row[i] : 0.f, own && i + 1 < n ? row[i + 1] : 0.f);
}
// Given only its block size, ptxas held the tensor-core body at 256 threads and head_dim 128 to 48 registers on
// sm_90a and spilled (nvcc 13.0); one block per SM as the bound lets it take 64, no spill on either target.
#define QTILE_BOUNDS __launch_bounds__(ATTN_THREADS, 1)
#else
#define QTILE_BOUNDS __launch_bounds__(ATTN_THREADS)
#endif
extern "C" __global__ void QTILE_BOUNDS
kf_attention_tiles(const float* __restrict__ qkv, int ld, float* __restrict__ out, int heads, int kv_heads,
                   const int* __restrict__ tok_slot, const int* __restrict__ tok_pos,
                   const kv_t* __restrict__ k_cache, const kv_t* __restrict__ v_cache, int context,
                   const int* __restrict__ block_table, int table_width, float scale, int queries, int tokens) {
#if ATTN_QTILE  // the body only where the genome launches it (the kernel stays, so every module defines the same)
#if KF_ACT_BF16
  __shared__ __align__(16) unsigned short qh[QTILE_ROWS][QTC_LD];  // q * scale in bf16, zeros past count and KF_D
  __shared__ __align__(16) unsigned short ks[QTILE_KEYS][QTC_LD];  // the cache's bf16 as they are, zeros past KF_D
  __shared__ __align__(16) unsigned short vs[QTILE_KEYS][QTC_LD];  // and zeros in the rows past n up to 16
#else
  __shared__ float q[QTILE_ROWS][KF_D];
  __shared__ float ks[QTILE_KEYS][KF_D + 1];
  __shared__ float vs[QTILE_KEYS][KF_D];
#endif
  __shared__ float p[QTILE_ROWS][QTILE_KEYS];
  __shared__ long long rows[QTILE_KEYS];
  __shared__ float m[QTILE_ROWS], l[QTILE_ROWS], correction[QTILE_ROWS];
  const int group = heads / kv_heads, g = blockIdx.y, t0 = blockIdx.x * queries;
  const int count = min(queries, tokens - t0) * group;  // rows r: token t0 + r / group, head g * group + r % group
#if KF_ACT_BF16
  for (int e = threadIdx.x; e < QTILE_ROWS * QTC_DP; e += blockDim.x) {
    const int r = e / QTC_DP, d = e % QTC_DP;
    const float x = r < count && d < KF_D
                        ? qkv[(long long)(t0 + r / group) * ld + (g * group + r % group) * KF_D + d] * scale
                        : 0.f;
    qh[r][d] = (unsigned short)kf_bf16_bits(x);
  }
  for (int e = threadIdx.x; e < QTILE_KEYS * (QTC_DP - KF_D); e += blockDim.x) {  // pads no copy overwrites
    const int i = e / (QTC_DP - KF_D), d = KF_D + e % (QTC_DP - KF_D);
    ks[i][d] = 0;
    vs[i][d] = 0;
  }
#else
  for (int e = threadIdx.x; e < count * KF_D; e += blockDim.x) {
    const int r = e / KF_D, d = e % KF_D;
    q[r][d] = qkv[(long long)(t0 + r / group) * ld + (g * group + r % group) * KF_D + d] * scale;
  }
#endif
  if (threadIdx.x < count) {
    m[threadIdx.x] = KF_NEG_BIG;
    l[threadIdx.x] = 0.f;
  }
#if KF_ACT_BF16
  const int warp = threadIdx.x >> 5, warps = ATTN_THREADS / 32, lane = threadIdx.x & 31, qg = lane >> 2, qt = lane & 3;
  const int lq = lane >> 3, lr = lane & 7;  // the ldmatrix matrix whose row address this lane gives, and the row
  float acc[QTC_NT][4];  // O's rows qg, qg + 8 at columns (warp + j warps) * 8 + 2 qt, + 1
#pragma unroll
  for (int j = 0; j < QTC_NT; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[j][e] = 0.f;
#else
  float acc[QTILE_PER];
#pragma unroll
  for (int j = 0; j < QTILE_PER; ++j) acc[j] = 0.f;
#endif
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
#if KF_ACT_BF16
      for (int e = threadIdx.x; e < ((n + 15) / 16 * 16 - n) * QTC_DP; e += blockDim.x)  // V's rows past n: P V's k
        vs[n + e / QTC_DP][e % QTC_DP] = 0;
#if KF_D % 8 == 0
      for (int e = threadIdx.x; e < n * (KF_D / 8); e += blockDim.x) {  // 8 bf16 a copy
        const int i = e / (KF_D / 8), d = 8 * (e % (KF_D / 8));
        cp_async16(&ks[i][d], k_cache + rows[i] + d, true);
        cp_async16(&vs[i][d], v_cache + rows[i] + d, true);
      }
      cp_async_commit();
      cp_async_wait<0>();
#else
      for (int e = threadIdx.x; e < n * KF_D; e += blockDim.x) {
        const int i = e / KF_D, d = e % KF_D;
        ks[i][d] = k_cache[rows[i] + d];
        vs[i][d] = v_cache[rows[i] + d];
      }
#endif
#else
      for (int e = threadIdx.x; e < n * KF_D; e += blockDim.x) {
        const int i = e / KF_D, d = e % KF_D;
        ks[i][d] = kv_get(k_cache[rows[i] + d]);
        vs[i][d] = kv_get(v_cache[rows[i] + d]);
      }
#endif
      __syncthreads();
#if KF_ACT_BF16
      for (int j = warp; j * 8 < n; j += warps) {  // S's 8-key column tiles: all 16 rows, read only in [first, end)
        float c[4] = {0.f, 0.f, 0.f, 0.f};
        for (int d0 = 0; d0 < QTC_DP; d0 += 16) {
          unsigned a[4], b[2];  // q's (rows lo, d lo), (rows hi, d lo), (rows lo, d hi), (rows hi, d hi); keys' d lo, hi
          ldmatrix_x4(a, &qh[(lq & 1) * 8 + lr][d0 + (lq >> 1) * 8]);
          ldmatrix_x2(b, &ks[j * 8 + lr][d0 + (lq & 1) * 8]);
          mma_bf16(c, a, b);
        }
        p[qg][j * 8 + 2 * qt] = c[0];
        p[qg][j * 8 + 2 * qt + 1] = c[1];
        p[qg + 8][j * 8 + 2 * qt] = c[2];
        p[qg + 8][j * 8 + 2 * qt + 1] = c[3];
      }
#else
      for (int e = threadIdx.x; e < (end - first) * n; e += blockDim.x) {
        const int r = first + e / n, i = e % n;
        float dot = 0.f;
        for (int d = 0; d < KF_D; ++d) dot += q[r][d] * ks[i][d];
        p[r][i] = dot;
      }
#endif
      __syncthreads();
      if (threadIdx.x >= first && threadIdx.x < end) {  // each row's online softmax over its unmasked positions
        const int r = threadIdx.x, seen = min(n, tok_pos[t0 + r / group] + 1 - s0);  // may be <= 0: all masked
        online_softmax_tile(p[r], n, seen, m[r], l[r], correction[r]);
      }
      __syncthreads();
#if KF_ACT_BF16
      const bool own0 = qg >= first && qg < end, own8 = qg + 8 >= first && qg + 8 < end;
      const float keep0 = own0 ? correction[qg] : 1.f, keep8 = own8 ? correction[qg + 8] : 1.f;
#pragma unroll
      for (int j = 0; j < QTC_NT; ++j) {
        const int col = (warp + j * warps) * 8;  // B's 8 columns: dimensions of V
        if (col >= KF_D) continue;
        acc[j][0] *= keep0;
        acc[j][1] *= keep0;
        acc[j][2] *= keep8;
        acc[j][3] *= keep8;
        for (int i0 = 0; i0 < n; i0 += 16) {
          const int i = i0 + 2 * qt;
          const unsigned a[4] = {qtc_weights(p[qg], i, n, own0), qtc_weights(p[qg + 8], i, n, own8),
                                 qtc_weights(p[qg], i + 8, n, own0), qtc_weights(p[qg + 8], i + 8, n, own8)};
          unsigned b[2];  // V's keys i0..i0 + 7 and i0 + 8..i0 + 15 at the 8 columns, transposed: a column per lane
          ldmatrix_x2_trans(b, &vs[i0 + (lane & 15)][col]);
          mma_bf16(acc[j], a, b);
        }
      }
#else
#pragma unroll
      for (int j = 0; j < QTILE_PER; ++j) {
        const int e = threadIdx.x + j * ATTN_THREADS, r = e / KF_D, d = e % KF_D;
        if (r < first || r >= end) continue;
        float a = acc[j] * correction[r];
        for (int i = 0; i < n; ++i) a += p[r][i] * vs[i][d];
        acc[j] = a;
      }
#endif
    }
    first = end;
  }
#if KF_ACT_BF16
  __syncthreads();  // l is final
#pragma unroll
  for (int j = 0; j < QTC_NT; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {  // C's (qg, 2qt), (qg, 2qt + 1), (qg + 8, 2qt), (qg + 8, 2qt + 1)
      const int r = qg + (e / 2) * 8, d = (warp + j * warps) * 8 + 2 * qt + e % 2;
      if (r < count && d < KF_D)
        out[((long long)(t0 + r / group) * heads + g * group + r % group) * KF_D + d] = acc[j][e] / l[r];
    }
#else
#pragma unroll
  for (int j = 0; j < QTILE_PER; ++j) {
    const int e = threadIdx.x + j * ATTN_THREADS, r = e / KF_D;
    if (r < count) out[((long long)(t0 + r / group) * heads + g * group + r % group) * KF_D + e % KF_D] = acc[j] / l[r];
  }
#endif
#endif
}
)CUDA";
}

}  // namespace kforge::kernels::cuda::engine::text
