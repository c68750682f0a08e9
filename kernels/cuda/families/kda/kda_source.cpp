// The KDA forward template: chunked Kimi Delta Attention, one block per (value tile, head, sequence).
// Per head the recurrence is S_t = (I - beta_t k_t k_t^T) Diag(alpha_t) S_{t-1} + beta_t k_t v_t^T and
// o_t = S_t^T (q_t / sqrt(D)), with g_t = log(alpha_t) <= 0 per channel. Within a chunk of CHUNK tokens, with
// G_i the cumulative gate and delta_j = beta_j (v_j - (Diag(alpha_j) S_{j-1})^T k_j):
//   delta_i = beta_i (v_i - S0^T (e^{G_i} k_i)) - beta_i sum_{j<i} A_ij delta_j,  A_ij = sum_c k_ic k_jc e^{G_ic - G_jc}
//   o_i     = S0^T (e^{G_i} q_i) + sum_{j<=i} B_ij delta_j,                       B_ij = sum_c q_ic k_jc e^{G_ic - G_jc}
//   S      <- Diag(e^{G_C}) S0 + sum_j (k_j e^{G_C - G_j}) delta_j^T
// Every exponent is G_i - G_j with j <= i, so it is <= 0: no overflow however strong the decay.
// A batch of B sequences, packed: sequence b holds tokens cu_seqlens[b] .. cu_seqlens[b + 1] - 1 (int32, B + 1
// entries; equal lengths T are 0, T, 2T, ...; variable lengths as FLA's cu_seqlens). Inputs q, k, v, g fp32
// [tokens,H,D], beta fp32 [tokens,H]; outputs o fp32 [tokens,H,D] and each sequence's final state fp32 [B,H,D,D]
// (key rows, value columns). D = 128. The next STAGES - 1 chunks stream in with cp.async.
#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {

const char* kda_kernel_body() {
  return R"CUDA(
#define D 128
#define THREADS (WARPS * 32)
#define STAGE_FLOATS (3 * CHUNK * D + CHUNK * BV + CHUNK)

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(float* dst, const float* src, bool in_bounds) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(in_bounds ? 16 : 0));
}
__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool in_bounds) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(in_bounds ? 4 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Stage layout: q [CHUNK][D], k [CHUNK][D], g [CHUNK][D], v [CHUNK][BV], beta [CHUNK]. Tokens past the
// sequence's T load as zeros: g = 0, k = q = v = beta = 0 leave the state untouched. `first`: its first token.
__device__ void load_chunk(float* stage, const float* q, const float* k, const float* v, const float* g,
                           const float* beta, size_t first, int T, int H, int h, int t0, int v0) {
  float* sq = stage;
  float* sk = sq + CHUNK * D;
  float* sg = sk + CHUNK * D;
  float* sv = sg + CHUNK * D;
  float* sbeta = sv + CHUNK * BV;
  for (int c = threadIdx.x; c < CHUNK * (D / 4); c += THREADS) {
    const int i = c / (D / 4), col = (c % (D / 4)) * 4;
    const bool ok = t0 + i < T;
    const size_t at = ok ? ((first + t0 + i) * H + h) * D + col : 0;
    cp_async16(sq + i * D + col, q + at, ok);
    cp_async16(sk + i * D + col, k + at, ok);
    cp_async16(sg + i * D + col, g + at, ok);
  }
  for (int c = threadIdx.x; c < CHUNK * (BV / 4); c += THREADS) {
    const int i = c / (BV / 4), col = (c % (BV / 4)) * 4;
    const bool ok = t0 + i < T;
    cp_async16(sv + i * BV + col, v + (ok ? ((first + t0 + i) * H + h) * D + v0 + col : 0), ok);
  }
  for (int i = threadIdx.x; i < CHUNK; i += THREADS) {
    const bool ok = t0 + i < T;
    cp_async4(sbeta + i, beta + (ok ? (first + t0 + i) * H + h : 0), ok);
  }
}

extern "C" __global__ void __launch_bounds__(THREADS)
kforge_kda(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
           const float* __restrict__ g, const float* __restrict__ beta, const int* __restrict__ cu_seqlens,
           float* __restrict__ o, float* __restrict__ state_out, int H) {
  extern __shared__ __align__(16) float smem[];
  float* S = smem + STAGES * STAGE_FLOATS;  // [D][BV]
  float* A = S + D * BV;                    // [CHUNK][CHUNK], beta_i folded in
  float* Bm = A + CHUNK * CHUNK;            // [CHUNK][CHUNK]
  float* W = Bm + CHUNK * CHUNK;            // [CHUNK][BV]: right-hand side, then delta
  float* O = W + CHUNK * BV;                // [CHUNK][BV]: inter-chunk part of the output
  float* G_last = O + CHUNK * BV;           // [D]
  const int v0 = blockIdx.x * BV, h = blockIdx.y, b = blockIdx.z;
  const size_t first = cu_seqlens[b];
  const int T = cu_seqlens[b + 1] - cu_seqlens[b];
  const float scale = rsqrtf((float)D);
  for (int e = threadIdx.x; e < D * BV; e += THREADS) S[e] = 0.f;

  const int chunks = (T + CHUNK - 1) / CHUNK;
  for (int s = 0; s < STAGES; ++s) {
    if (s < chunks) load_chunk(smem + s * STAGE_FLOATS, q, k, v, g, beta, first, T, H, h, s * CHUNK, v0);
    cp_async_commit();
  }
  for (int n = 0; n < chunks; ++n) {
    float* sq = smem + (n % STAGES) * STAGE_FLOATS;
    float* sk = sq + CHUNK * D;
    float* sg = sk + CHUNK * D;
    float* sv = sg + CHUNK * D;
    float* sbeta = sv + CHUNK * BV;
    const int t0 = n * CHUNK;
    cp_async_wait<STAGES - 1>();
    __syncthreads();
    // 1. cumulative gate G in place of g; q scaled.
    for (int c = threadIdx.x; c < D; c += THREADS) {
      float run = 0.f;
      for (int i = 0; i < CHUNK; ++i) {
        run += sg[i * D + c];
        sg[i * D + c] = run;
        sq[i * D + c] *= scale;
      }
      G_last[c] = run;
    }
    __syncthreads();
    // 2. A (strictly lower, times beta_i) and B (lower with diagonal).
    for (int p = threadIdx.x; p < CHUNK * CHUNK; p += THREADS) {
      const int i = p / CHUNK, j = p % CHUNK;
      float a = 0.f, bq = 0.f;
      if (j <= i) {
        for (int c = 0; c < D; ++c) {
          const float kj = sk[j * D + c] * __expf(sg[i * D + c] - sg[j * D + c]);
          a += sk[i * D + c] * kj;
          bq += sq[i * D + c] * kj;
        }
      }
      A[p] = j < i ? a * sbeta[i] : 0.f;
      Bm[p] = bq;
    }
    __syncthreads();
    // 3. q <- e^G q, g <- e^G k, k <- k e^{G_last - G} (the state update's factor).
    for (int e = threadIdx.x; e < CHUNK * D; e += THREADS) {
      const int c = e % D;
      const float G = sg[e], kk = sk[e];
      const float decay = __expf(G);
      sq[e] *= decay;
      sg[e] = kk * decay;
      sk[e] = kk * __expf(G_last[c] - G);
    }
    __syncthreads();
    // 4. right-hand side and the output's inter-chunk part from the state before the chunk.
    for (int p = threadIdx.x; p < CHUNK * BV; p += THREADS) {
      const int i = p / BV, col = p % BV;
      float sk_dot = 0.f, sq_dot = 0.f;
      for (int c = 0; c < D; ++c) {
        const float s = S[c * BV + col];
        sk_dot += sg[i * D + c] * s;
        sq_dot += sq[i * D + c] * s;
      }
      W[p] = sbeta[i] * (sv[p] - sk_dot);
      O[p] = sq_dot;
    }
    __syncthreads();
    // 5. forward substitution, one value column per thread.
    for (int col = threadIdx.x; col < BV; col += THREADS)
      for (int i = 1; i < CHUNK; ++i) {
        float acc = W[i * BV + col];
        for (int j = 0; j < i; ++j) acc -= A[i * CHUNK + j] * W[j * BV + col];
        W[i * BV + col] = acc;
      }
    __syncthreads();
    // 6. output, and 7. the state for the next chunk (both only read delta).
    for (int p = threadIdx.x; p < CHUNK * BV; p += THREADS) {
      const int i = p / BV, col = p % BV;
      if (t0 + i >= T) continue;
      float acc = O[p];
      for (int j = 0; j <= i; ++j) acc += Bm[i * CHUNK + j] * W[j * BV + col];
      o[((first + t0 + i) * H + h) * D + v0 + col] = acc;
    }
    for (int e = threadIdx.x; e < D * BV; e += THREADS) {
      const int c = e / BV, col = e % BV;
      float acc = __expf(G_last[c]) * S[e];
      for (int j = 0; j < CHUNK; ++j) acc += sk[j * D + c] * W[j * BV + col];
      S[e] = acc;
    }
    __syncthreads();  // the stage is free again, and S is complete
    if (n + STAGES < chunks)
      load_chunk(smem + (n % STAGES) * STAGE_FLOATS, q, k, v, g, beta, first, T, H, h, (n + STAGES) * CHUNK, v0);
    cp_async_commit();
  }
  for (int e = threadIdx.x; e < D * BV; e += THREADS) {
    const int c = e / BV, col = e % BV;
    state_out[(((size_t)b * H + h) * D + c) * D + v0 + col] = S[e];
  }
}
)CUDA";
}

}  // namespace kforge::kernels::cuda
