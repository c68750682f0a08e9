// The KDA forward template: chunked Kimi Delta Attention, one block per (value tile, head, sequence).
// Per head the recurrence is S_t = (I - beta_t k_t k_t^T) Diag(alpha_t) S_{t-1} + beta_t k_t v_t^T and
// o_t = S_t^T (q_t / sqrt(D)), with g_t = log(alpha_t) <= 0 per channel. Within a chunk of CHUNK tokens, with
// G_i the cumulative gate and delta_j = beta_j (v_j - (Diag(alpha_j) S_{j-1})^T k_j):
//   delta_i = beta_i (v_i - S0^T (e^{G_i} k_i)) - beta_i sum_{j<i} A_ij delta_j,  A_ij = sum_c k_ic k_jc e^{G_ic -
//   G_jc} o_i     = S0^T (e^{G_i} q_i) + sum_{j<=i} B_ij delta_j,                       B_ij = sum_c q_ic k_jc e^{G_ic
//   - G_jc} S      <- Diag(e^{G_C}) S0 + sum_j (k_j e^{G_C - G_j}) delta_j^T
// Every exponent is G_i - G_j with j <= i, so it is <= 0: no overflow however strong the decay.
// A batch of B sequences, packed: sequence b holds tokens cu_seqlens[b] .. cu_seqlens[b + 1] - 1 (int32, B + 1
// entries; equal lengths T are 0, T, 2T, ...; variable lengths as FLA's cu_seqlens). Inputs q, k, v [tokens,H,D]
// and beta [tokens,H] in fp32, or with KF_BF16 in bf16 (FLA's chunk_kda's inputs); g fp32 [tokens,H,D] always.
// Outputs o [tokens,H,D] in the inputs' precision and each sequence's final state fp32 [B,H,D,D] (key rows, value
// columns). D = 128. Arithmetic is fp32 in both. The next STAGES - 1 chunks stream in with cp.async; bf16 chunks
// are widened to fp32 in a work area once they have arrived.
// cp.async, ldmatrix, mma and bf16 rounding are the shared PTX helpers (ptx_helpers.hpp); the chunk's stage layout
// and load, kda_stage_source.cpp.
#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {

const char* kda_kernel_body() {
  return R"CUDA(
// At least one block per SM, and no more asked for: with THREADS alone ptxas capped a 256-thread block at 64 registers
// and spilled, for an occupancy the block's shared memory never allows; asking for every block that shared memory
// lets fit capped a 512-thread block of 62 KiB at 40 registers and spilled as well. Occupancy is the genome's to find.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
kforge_kda(const in_t* __restrict__ q, const in_t* __restrict__ k, const in_t* __restrict__ v,
           const float* __restrict__ g, const in_t* __restrict__ beta, const int* __restrict__ cu_seqlens,
           in_t* __restrict__ o, float* __restrict__ state_out, int H) {
  KF_DYNAMIC_SHARED(smem);
  float* after_stages = reinterpret_cast<float*>(smem + STAGES * STAGE_BYTES);
#if KF_BF16
  float* work = after_stages;                 // q, k [CHUNK][D] and v [CHUNK][BV] widened to fp32
  float* S = work + 2 * CHUNK * D + CHUNK * BV;  // [D][BV]
#else
  float* S = after_stages;                    // [D][BV]
#endif
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
    if (s < chunks) load_chunk(smem + s * STAGE_BYTES, q, k, v, g, beta, first, T, H, h, s * CHUNK, v0);
    cp_async_commit();
  }
  for (int n = 0; n < chunks; ++n) {
    in_t* staged = reinterpret_cast<in_t*>(smem + (n % STAGES) * STAGE_BYTES);  // q, k, v as loaded
    float* sg = reinterpret_cast<float*>(staged + 2 * CHUNK * D + CHUNK * BV);
    float* sbeta = sg + CHUNK * D;
    const int t0 = n * CHUNK;
    cp_async_wait<STAGES - 1>();
    __syncthreads();
#if KF_BF16
    float* sq = work;
    float* sk = sq + CHUNK * D;
    float* sv = sk + CHUNK * D;
    for (int e = threadIdx.x; e < CHUNK * D; e += THREADS) {
      sq[e] = widen(staged[e]);
      sk[e] = widen(staged[CHUNK * D + e]);
    }
    for (int e = threadIdx.x; e < CHUNK * BV; e += THREADS) sv[e] = widen(staged[2 * CHUNK * D + e]);
    __syncthreads();
#else
    float* sq = staged;
    float* sk = sq + CHUNK * D;
    float* sv = sk + CHUNK * D;
#endif
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
      o[((first + t0 + i) * H + h) * D + v0 + col] = narrow(acc);
    }
    for (int e = threadIdx.x; e < D * BV; e += THREADS) {
      const int c = e / BV, col = e % BV;
      float acc = __expf(G_last[c]) * S[e];
      for (int j = 0; j < CHUNK; ++j) acc += sk[j * D + c] * W[j * BV + col];
      S[e] = acc;
    }
    __syncthreads();  // the stage is free again, and S is complete
    if (n + STAGES < chunks)
      load_chunk(smem + (n % STAGES) * STAGE_BYTES, q, k, v, g, beta, first, T, H, h, (n + STAGES) * CHUNK, v0);
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
