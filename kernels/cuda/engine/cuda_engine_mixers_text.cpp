// The cuda engine module's token mixers (cuda_engine_source.hpp): RoPE with the KV cache append, causal
// grouped-query attention over the cache, and Kimi Delta Attention over each sequence's recurrent state.
#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine::text {

const char* engine_mixers() {
  return R"CUDA(
// RoPE (rotate_half: dimension i pairs with i + D/2) on every query head, in place, and on every key head, whose
// rotated keys go with the values to the layer's cache at the token's (slot, position). rope_cos / rope_sin:
// [context][D/2], computed by the harness in double. qkv rows: [q (heads D) | k (kv_heads D) | v (kv_heads D)].
extern "C" __global__ void __launch_bounds__(NORM_THREADS)
kf_rope_cache(float* __restrict__ qkv, int ld, int heads, int kv_heads, const int* __restrict__ tok_slot,
              const int* __restrict__ tok_pos, const float* __restrict__ rope_cos,
              const float* __restrict__ rope_sin, kv_t* __restrict__ k_cache, kv_t* __restrict__ v_cache,
              int context, const int* __restrict__ block_table, int table_width) {
  const int t = blockIdx.x, half = KF_D / 2, pos = tok_pos[t];
  float* row = qkv + (long long)t * ld;
  const float* c = rope_cos + (long long)pos * half;
  const float* s = rope_sin + (long long)pos * half;
  const long long cache = cache_row(tok_slot[t], pos, context, block_table, table_width) * kv_heads * KF_D;
  for (int e = threadIdx.x; e < (heads + kv_heads) * half; e += blockDim.x) {
    const int head = e / half, i = e % half;
    float* x = row + head * KF_D;  // the key heads follow the query heads
    const float x0 = x[i], x1 = x[i + half];
    const float y0 = x0 * c[i] - x1 * s[i], y1 = x1 * c[i] + x0 * s[i];
    if (head < heads) {
      x[i] = y0;
      x[i + half] = y1;
    } else {
      kv_t* to = k_cache + cache + (head - heads) * KF_D;
      to[i] = kv_put(y0);
      to[i + half] = kv_put(y1);
    }
  }
  const float* v = row + (heads + kv_heads) * KF_D;
  for (int e = threadIdx.x; e < kv_heads * KF_D; e += blockDim.x) v_cache[cache + e] = kv_put(v[e]);
}

// Causal grouped-query attention of one token's query head (block (t, h)) over its slot's cached positions
// 0..pos: an online softmax over tiles of ATTN_TILE positions, each thread owning ATTN_PER output dimensions.
// q is pre-scaled by `scale` = 1 / sqrt(D). out rows: heads D.
extern "C" __global__ void __launch_bounds__(ATTN_THREADS)
kf_attention(const float* __restrict__ qkv, int ld, float* __restrict__ out, int heads, int kv_heads,
             const int* __restrict__ tok_slot, const int* __restrict__ tok_pos, const kv_t* __restrict__ k_cache,
             const kv_t* __restrict__ v_cache, int context, const int* __restrict__ block_table, int table_width,
             float scale) {
  __shared__ float q[KF_D];
  __shared__ float p[ATTN_TILE];
  __shared__ long long rows[ATTN_TILE];
  __shared__ float scratch[32];
  const int t = blockIdx.x, h = blockIdx.y, g = h / (heads / kv_heads);
  const int slot = tok_slot[t], last = tok_pos[t];
  for (int d = threadIdx.x; d < KF_D; d += blockDim.x) q[d] = qkv[(long long)t * ld + h * KF_D + d] * scale;
  float acc[ATTN_PER];
#pragma unroll
  for (int j = 0; j < ATTN_PER; ++j) acc[j] = 0.f;
  float m = KF_NEG_BIG, l = 0.f;
  for (int s0 = 0; s0 <= last; s0 += ATTN_TILE) {
    const int n = min(ATTN_TILE, last + 1 - s0);
    __syncthreads();  // q is written; the previous tile's p and rows are read
    float tile_max = KF_NEG_BIG;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const long long r = (cache_row(slot, s0 + i, context, block_table, table_width) * kv_heads + g) * KF_D;
      const kv_t* k = k_cache + r;
      float dot = 0.f;
      for (int d = 0; d < KF_D; ++d) dot += q[d] * kv_get(k[d]);
      p[i] = dot;
      rows[i] = r;
      tile_max = fmaxf(tile_max, dot);
    }
    const float m_new = fmaxf(m, block_max(tile_max, scratch));
    float part = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const float e = expf(p[i] - m_new);
      p[i] = e;
      part += e;
    }
    const float correction = expf(m - m_new);
    l = l * correction + block_sum(part, scratch);
    m = m_new;
#pragma unroll
    for (int j = 0; j < ATTN_PER; ++j) {
      const int d = threadIdx.x + j * ATTN_THREADS;
      if (d >= KF_D) continue;
      float a = acc[j] * correction;
      for (int i = 0; i < n; ++i) a += p[i] * kv_get(v_cache[rows[i] + d]);
      acc[j] = a;
    }
  }
#pragma unroll
  for (int j = 0; j < ATTN_PER; ++j) {
    const int d = threadIdx.x + j * ATTN_THREADS;
    if (d < KF_D) out[((long long)t * heads + h) * KF_D + d] = acc[j] / l;
  }
}

// The same attention with K and V read once per grouped-query group (ATTN_GROUP): block (t, g) serves every query
// head of KV head g for token t. Each tile of GROUP_TILE cached positions is loaded into shared memory by the whole
// block (consecutive threads, consecutive dimensions), then every head of the group scores it and adds its values
// with its own online softmax; the kf_attention block per (token, head) read the same keys and values once per head.
// At most GROUP_MAX heads per group (the plan uses kf_attention beyond). Each thread owns (head, dimension) pairs.
#define GROUP_MAX 8
// One row's online softmax over a tile of n scores p, of which the first `seen` count (the rest, positions after the
// row's own, weigh 0; seen may be <= 0): p becomes the weights, m and l the running maximum and sum, `correction`
// the factor the row's earlier sums are scaled by.
__device__ __forceinline__ void online_softmax_tile(float* p, int n, int seen, float& m, float& l, float& correction) {
  float tile_max = KF_NEG_BIG;
  for (int i = 0; i < seen; ++i) tile_max = fmaxf(tile_max, p[i]);
  const float m_new = fmaxf(m, tile_max);
  float part = 0.f;
  for (int i = 0; i < n; ++i) part += (p[i] = i < seen ? expf(p[i] - m_new) : 0.f);
  correction = expf(m - m_new);
  l = l * correction + part;
  m = m_new;
}
#define GROUP_TILE (4096 / KF_D > 256 ? 256 : 4096 / KF_D < 8 ? 8 : 4096 / KF_D)  /* keys + values: about 32 KiB */
#define GROUP_PER ((GROUP_MAX * KF_D + ATTN_THREADS - 1) / ATTN_THREADS)
extern "C" __global__ void __launch_bounds__(ATTN_THREADS)
kf_attention_group(const float* __restrict__ qkv, int ld, float* __restrict__ out, int heads, int kv_heads,
                   const int* __restrict__ tok_slot, const int* __restrict__ tok_pos,
                   const kv_t* __restrict__ k_cache, const kv_t* __restrict__ v_cache, int context,
                   const int* __restrict__ block_table, int table_width, float scale) {
  __shared__ float q[GROUP_MAX][KF_D];
  __shared__ float ks[GROUP_TILE][KF_D + 1];  // +1: a row per thread in the scores falls on its own bank
  __shared__ float vs[GROUP_TILE][KF_D];
  __shared__ float p[GROUP_MAX][GROUP_TILE];
  __shared__ long long rows[GROUP_TILE];
  __shared__ float m[GROUP_MAX], l[GROUP_MAX], correction[GROUP_MAX];
  const int t = blockIdx.x, g = blockIdx.y, group = heads / kv_heads, h0 = g * group;
  const int slot = tok_slot[t], last = tok_pos[t];
  for (int e = threadIdx.x; e < group * KF_D; e += blockDim.x)
    q[e / KF_D][e % KF_D] = qkv[(long long)t * ld + (h0 + e / KF_D) * KF_D + e % KF_D] * scale;
  if (threadIdx.x < group) {
    m[threadIdx.x] = KF_NEG_BIG;
    l[threadIdx.x] = 0.f;
  }
  float acc[GROUP_PER];
#pragma unroll
  for (int j = 0; j < GROUP_PER; ++j) acc[j] = 0.f;
  for (int s0 = 0; s0 <= last; s0 += GROUP_TILE) {
    const int n = min(GROUP_TILE, last + 1 - s0);
    for (int i = threadIdx.x; i < n; i += blockDim.x)
      rows[i] = (cache_row(slot, s0 + i, context, block_table, table_width) * kv_heads + g) * KF_D;
    __syncthreads();  // rows are written; the previous tile's keys, values and weights are no longer read
    for (int e = threadIdx.x; e < n * KF_D; e += blockDim.x) {
      const int i = e / KF_D, d = e % KF_D;
      ks[i][d] = kv_get(k_cache[rows[i] + d]);
      vs[i][d] = kv_get(v_cache[rows[i] + d]);
    }
    __syncthreads();
    for (int e = threadIdx.x; e < group * n; e += blockDim.x) {
      const int hh = e / n, i = e % n;
      float dot = 0.f;
      for (int d = 0; d < KF_D; ++d) dot += q[hh][d] * ks[i][d];
      p[hh][i] = dot;
    }
    __syncthreads();
    if (threadIdx.x < group)  // each head's online softmax over the tile: n <= GROUP_TILE steps
      online_softmax_tile(p[threadIdx.x], n, n, m[threadIdx.x], l[threadIdx.x], correction[threadIdx.x]);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < GROUP_PER; ++j) {
      const int e = threadIdx.x + j * ATTN_THREADS;
      if (e >= group * KF_D) continue;
      const int hh = e / KF_D, d = e % KF_D;
      float a = acc[j] * correction[hh];
      for (int i = 0; i < n; ++i) a += p[hh][i] * vs[i][d];
      acc[j] = a;
    }
  }
#pragma unroll
  for (int j = 0; j < GROUP_PER; ++j) {
    const int e = threadIdx.x + j * ATTN_THREADS;
    if (e < group * KF_D) out[((long long)t * heads + h0 + e / KF_D) * KF_D + e % KF_D] = acc[j] / l[e / KF_D];
  }
}

// Kimi Delta Attention of one sequence's tokens in this step, for one head (block (sequence, h)): thread j owns
// column j of the head's D x D state (key rows, value columns), in registers for the whole sequence
// (KDA_STATE_REGS) or in global memory. state: [slots][heads][D][D] of this layer; a sequence starting at
// position 0 starts from zero. proj rows: [q | k | v | f (heads D each) | b (heads)]; out rows: heads D.
// Per token: q, k L2-normalised (q also scaled by `scale` = 1 / sqrt(D)), alpha = sigmoid(-f), beta = sigmoid(b),
// S <- Diag(alpha) S, S <- S + k (beta (v - S^T k))^T, o = S^T q.
extern "C" __global__ void __launch_bounds__(KDA_THREADS)
kf_kda(const float* __restrict__ proj, int ld, float* __restrict__ out, int heads, const int* __restrict__ seq_slot,
       const int* __restrict__ seq_start, const int* __restrict__ seq_count, const int* __restrict__ seq_row,
       float* __restrict__ state, float scale) {
  __shared__ float qs[KF_D];
  __shared__ float ks[KF_D];
  __shared__ float as[KF_D];
  __shared__ float beta;
  __shared__ float scratch[32];
  const int sq = blockIdx.x, h = blockIdx.y, j = threadIdx.x, HD = heads * KF_D;
  const bool owner = j < KF_D, fresh = seq_start[sq] == 0;
  float* S = state + ((long long)seq_slot[sq] * heads + h) * KF_D * KF_D;
#if KDA_STATE_REGS
  float s[KF_D];
#pragma unroll
  for (int i = 0; i < KF_D; ++i) s[i] = (owner && !fresh) ? S[i * KF_D + j] : 0.f;
#define KF_STATE(i) s[i]
#else
  if (owner && fresh)
    for (int i = 0; i < KF_D; ++i) S[i * KF_D + j] = 0.f;
#define KF_STATE(i) S[(i) * KF_D + j]
#endif
  for (int t = 0; t < seq_count[sq]; ++t) {
    const long long token = seq_row[sq] + t;
    const float* row = proj + token * ld;
    const float qv = owner ? row[h * KF_D + j] : 0.f;
    const float kv = owner ? row[HD + h * KF_D + j] : 0.f;
    const float qn = block_sum(qv * qv, scratch);  // its barriers also order this token's writes below after
    const float kn = block_sum(kv * kv, scratch);  // every thread's reads of the previous token's
    if (owner) {
      qs[j] = qv * rsqrtf(qn + 1e-6f) * scale;
      ks[j] = kv * rsqrtf(kn + 1e-6f);
      as[j] = 1.f / (1.f + expf(row[3 * HD + h * KF_D + j]));
    }
    if (j == 0) beta = 1.f / (1.f + expf(-row[4 * HD + h]));
    __syncthreads();
    if (owner) {
      float u = 0.f;
#pragma unroll
      for (int i = 0; i < KF_D; ++i) {
        const float x = KF_STATE(i) * as[i];
        KF_STATE(i) = x;
        u += x * ks[i];
      }
      const float delta = beta * (row[2 * HD + h * KF_D + j] - u);
      float o = 0.f;
#pragma unroll
      for (int i = 0; i < KF_D; ++i) {
        const float x = KF_STATE(i) + ks[i] * delta;
        KF_STATE(i) = x;
        o += x * qs[i];
      }
      out[token * HD + h * KF_D + j] = o;
    }
  }
#if KDA_STATE_REGS
  if (owner)
    for (int i = 0; i < KF_D; ++i) S[i * KF_D + j] = s[i];
#endif
#undef KF_STATE
}
)CUDA";
}

}  // namespace kforge::kernels::cuda::engine::text
