// The cuda engine module's shared helpers and its dense kernels (cuda_engine_source.hpp): embedding, RMSNorm, the
// projections' fp32 GEMM, SwiGLU's activation, the residual add, and the gather of each sequence's last row.
#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine::text {

const char* engine_common() {
  return R"CUDA(
#if !defined(KF_HEAD_DIM) || !defined(KF_PREPACK) || !defined(KF_KV_BLOCK)
#error "the harness defines KF_HEAD_DIM, KF_PREPACK and KF_KV_BLOCK on the compiler's command line"
#endif
#define KF_D KF_HEAD_DIM
#define KF_NEG_BIG (-3.402823466e38f)
#define GEMM_THREADS ((BM / TM) * (BN / TN))
#define KDA_THREADS ((KF_D + 31) / 32 * 32)
#define ATTN_PER ((KF_D + ATTN_THREADS - 1) / ATTN_THREADS)

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Every thread of the block gets the sum (max) of v over the block. blockDim.x is a multiple of 32; scratch holds
// 32 floats. Both start with a barrier, so consecutive calls may share scratch, and end with one, so what threads
// wrote to shared memory before the call is visible to all after it.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  v = warp_sum(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  return warp_sum((threadIdx.x & 31) < (blockDim.x >> 5) ? scratch[threadIdx.x & 31] : 0.f);
}

__device__ __forceinline__ float block_max(float v, float* scratch) {
  v = warp_max(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  return warp_max((threadIdx.x & 31) < (blockDim.x >> 5) ? scratch[threadIdx.x & 31] : KF_NEG_BIG);
}

// bf16 as 16 bits: the value of such bits, and the bf16 nearest to x (ties to even; a NaN stays a NaN).
__device__ __forceinline__ float kf_bf16_value(unsigned bits) { return __uint_as_float(bits << 16); }
__device__ __forceinline__ unsigned kf_bf16_bits(float x) {
  const unsigned u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// The projections' weights: fp32, or bf16 bits widened to fp32 as they are loaded, or int8 or fp8 (E4M3) codes whose
// output's scale (col_scale) multiplies its finished sum (the genome's weights).
#if KF_WEIGHTS_BF16
typedef unsigned short w_t;
__device__ __forceinline__ float weight(w_t w) { return kf_bf16_value(w); }
#elif KF_WEIGHTS_INT8
typedef signed char w_t;
__device__ __forceinline__ float weight(w_t w) { return (float)w; }
#elif KF_WEIGHTS_FP8
typedef unsigned char w_t;  // E4M3: 4 exponent bits of bias 7, 3 mantissa bits, subnormals below 2^-6, no infinity
__device__ __forceinline__ float weight(w_t w) {
  const unsigned e = (w >> 3) & 15u, m = w & 7u;
  const float a = e == 0 ? (float)m * 0.001953125f : __uint_as_float(((e + 120u) << 23) | (m << 20));
  return (w & 0x80u) ? -a : a;
}
#else
typedef float w_t;
__device__ __forceinline__ float weight(w_t w) { return w; }
#endif

// The KV cache row of (slot, position): one contiguous region per slot, or the slot's block table (paged).
__device__ __forceinline__ long long cache_row(int slot, int pos, int context, const int* block_table,
                                               int table_width) {
#if KF_KV_BLOCK > 0
  return (long long)block_table[slot * table_width + pos / KF_KV_BLOCK] * KF_KV_BLOCK + pos % KF_KV_BLOCK;
#else
  return (long long)slot * context + pos;
#endif
}

// The KV cache's element: fp32, or bf16 with bf16 activations (KF_ACT_BF16, the activation contract of
// docs/engines.md): half the bytes attention reads per cached position. kv_put rounds to the nearest bf16 (ties to
// even; a NaN stays a NaN), kv_get widens.
#if KF_ACT_BF16
typedef unsigned short kv_t;
__device__ __forceinline__ float kv_get(kv_t x) { return kf_bf16_value(x); }
__device__ __forceinline__ kv_t kv_put(float x) { return (kv_t)kf_bf16_bits(x); }
#else
typedef float kv_t;
__device__ __forceinline__ float kv_get(kv_t x) { return x; }
__device__ __forceinline__ kv_t kv_put(float x) { return x; }
#endif
)CUDA";
}

const char* engine_dense() {
  return R"CUDA(
// x[t] = table[tokens[t]]; one block per token.
extern "C" __global__ void __launch_bounds__(NORM_THREADS)
kf_embed(const int* __restrict__ tokens, const float* __restrict__ table, float* __restrict__ x, int hidden) {
  const float* from = table + (long long)tokens[blockIdx.x] * hidden;
  float* to = x + (long long)blockIdx.x * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) to[i] = from[i];
}

// out = x / sqrt(mean(x^2) + eps) * gamma, one block per row. Without gamma (fold_norm: gamma lives in the next
// GEMM's weights) only 1 / rms is written, for that GEMM's row scale. inv_rms may be null.
extern "C" __global__ void __launch_bounds__(NORM_THREADS)
kf_rmsnorm(const float* __restrict__ x, const float* __restrict__ gamma, float* __restrict__ out,
           float* __restrict__ inv_rms, int hidden, float eps) {
  __shared__ float scratch[32];
  const float* row = x + (long long)blockIdx.x * hidden;
  float squares = 0.f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) squares += row[i] * row[i];
  const float r = rsqrtf(block_sum(squares, scratch) / (float)hidden + eps);
  if (inv_rms != 0 && threadIdx.x == 0) inv_rms[blockIdx.x] = r;
  if (gamma == 0) return;
  float* o = out + (long long)blockIdx.x * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) o[i] = row[i] * r * gamma[i];
}

// C[m][n] = sum_k A[m][k] W[n][k], times row_scale[m] and col_scale[n] when given; written, or added to C when
// accumulate.
// A: M x K with row stride lda. W: N x K ([out, in], as the model stores it), or K x N with KF_PREPACK (transposed
// once at init, so a tile's loads run along N); fp32 or bf16 (w_t). A block computes a BM x BN tile of C through BK-deep slices in
// shared memory, each thread TM x TN outputs strided over the tile (a warp's loads and stores are consecutive).
// SPLIT_K > 1: blocks split K and add into C atomically; the harness zeroes C first unless it accumulates.
extern "C" __global__ void __launch_bounds__(GEMM_THREADS)
kf_gemm(const float* __restrict__ A, int lda, const w_t* __restrict__ W, float* C, int ldc, int M, int N, int K,
        const float* __restrict__ row_scale, int accumulate, const float* __restrict__ col_scale) {
  __shared__ float As[BK][BM];
  __shared__ float Ws[BK][BN];
  const int tid = threadIdx.x, tn = tid % (BN / TN), tm = tid / (BN / TN);
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int k_span = ((K + SPLIT_K - 1) / SPLIT_K + BK - 1) / BK * BK;
  const int k_begin = blockIdx.z * k_span, k_end = min(K, k_begin + k_span);
  if (k_begin >= K) return;  // a split with nothing left of K: the whole block leaves before any barrier
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    for (int e = tid; e < BM * BK; e += GEMM_THREADS) {
      const int mm = e / BK, kk = e % BK, m = m0 + mm, k = k0 + kk;
      As[kk][mm] = (m < M && k < k_end) ? A[(long long)m * lda + k] : 0.f;
    }
    for (int e = tid; e < BN * BK; e += GEMM_THREADS) {
#if KF_PREPACK
      const int kk = e / BN, nn = e % BN, n = n0 + nn, k = k0 + kk;
      Ws[kk][nn] = (n < N && k < k_end) ? weight(W[(long long)k * N + n]) : 0.f;
#else
      const int nn = e / BK, kk = e % BK, n = n0 + nn, k = k0 + kk;
      Ws[kk][nn] = (n < N && k < k_end) ? weight(W[(long long)n * K + k]) : 0.f;
#endif
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][tm + i * (BM / TM)];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Ws[kk][tn + j * (BN / TN)];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + tm + i * (BM / TM);
    if (m >= M) continue;
    const float scale = row_scale != 0 ? row_scale[m] : 1.f;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int n = n0 + tn + j * (BN / TN);
      if (n >= N) continue;
      float* c = C + (long long)m * ldc + n;
      const float v = acc[i][j] * scale * (col_scale != 0 ? col_scale[n] : 1.f);
#if SPLIT_K > 1
      atomicAdd(c, v);
#else
      *c = accumulate ? *c + v : v;
#endif
    }
  }
}

// act = SiLU(gate) * up; gu rows hold [gate (F) | up (F)]. One block per token.
extern "C" __global__ void __launch_bounds__(NORM_THREADS)
kf_silu_mul(const float* __restrict__ gu, float* __restrict__ act, int F) {
  const float* g = gu + (long long)blockIdx.x * 2 * F;
  float* o = act + (long long)blockIdx.x * F;
  for (int i = threadIdx.x; i < F; i += blockDim.x) {
    const float z = g[i];
    o[i] = z / (1.f + expf(-z)) * g[F + i];
  }
}

// x += y over n elements (the residual add when it is not a GEMM epilogue).
extern "C" __global__ void __launch_bounds__(NORM_THREADS)
kf_add(float* __restrict__ x, const float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += y[i];
}

// The cuBLAS bf16 baseline's projection inputs (cuda_engine_baselines.cpp; no genome launches it): rows x cols fp32
// values, row stride ld, as dense bf16 bits rounded to nearest even (NaN stays a quiet NaN), as cvt.rn.bf16.f32 does.
extern "C" __global__ void __launch_bounds__(NORM_THREADS)
kf_to_bf16(const float* __restrict__ in, int ld, unsigned short* __restrict__ out, int rows, int cols) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)rows * cols) return;
  const unsigned u = __float_as_uint(in[(i / cols) * ld + i % cols]);
  out[i] = (u & 0x7fffffffu) > 0x7f800000u ? (unsigned short)0x7fc0u
                                           : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// out[s] = x[rows[s]]: the last token's row of each sequence, for the final norm and the LM head.
extern "C" __global__ void __launch_bounds__(NORM_THREADS)
kf_gather_rows(const float* __restrict__ x, const int* __restrict__ rows, float* __restrict__ out, int hidden) {
  const float* from = x + (long long)rows[blockIdx.x] * hidden;
  float* to = out + (long long)blockIdx.x * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) to[i] = from[i];
}
)CUDA";
}

}  // namespace kforge::kernels::cuda::engine::text
