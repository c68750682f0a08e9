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
              const float* __restrict__ rope_sin, float* __restrict__ k_cache, float* __restrict__ v_cache,
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
    float* to = head < heads ? x : k_cache + cache + (head - heads) * KF_D;
    to[i] = y0;
    to[i + half] = y1;
  }
  const float* v = row + (heads + kv_heads) * KF_D;
  for (int e = threadIdx.x; e < kv_heads * KF_D; e += blockDim.x) v_cache[cache + e] = v[e];
}

// Causal grouped-query attention of one token's query head (block (t, h)) over its slot's cached positions
// 0..pos: an online softmax over tiles of ATTN_TILE positions, each thread owning ATTN_PER output dimensions.
// q is pre-scaled by `scale` = 1 / sqrt(D). out rows: heads D.
extern "C" __global__ void __launch_bounds__(ATTN_THREADS)
kf_attention(const float* __restrict__ qkv, int ld, float* __restrict__ out, int heads, int kv_heads,
             const int* __restrict__ tok_slot, const int* __restrict__ tok_pos, const float* __restrict__ k_cache,
             const float* __restrict__ v_cache, int context, const int* __restrict__ block_table, int table_width,
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
      const float* k = k_cache + r;
      float dot = 0.f;
      for (int d = 0; d < KF_D; ++d) dot += q[d] * k[d];
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
      for (int i = 0; i < n; ++i) a += p[i] * v_cache[rows[i] + d];
      acc[j] = a;
    }
  }
#pragma unroll
  for (int j = 0; j < ATTN_PER; ++j) {
    const int d = threadIdx.x + j * ATTN_THREADS;
    if (d < KF_D) out[((long long)t * heads + h) * KF_D + d] = acc[j] / l;
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
