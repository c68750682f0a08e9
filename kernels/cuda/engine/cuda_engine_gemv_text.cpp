// The cuda engine module's kf_gemv (cuda_engine_source.hpp): the projections of decode steps, with the RMSNorm before
// them (GEMV_NORM) and the SiLU after the MLP's gate and up (GEMV_SILU) fused in where the genome asks.
#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine::text {

const char* engine_gemv() {
  return R"CUDA(
// kf_gemm's result for the few rows of a decode step (M <= GEMV_ROWS, W not prepacked), where kf_gemm's tiles would
// compute mostly padding: one warp per output column n streams W's row n in 16-byte vectors (16 int8, 8 bf16 or 4 fp32
// weights per lane and load), uses each weight for every row of A, and sums its lanes' parts with shuffles. A row of
// W that is not 16-byte aligned, and the tail of K, are read one weight per lane.
#define GEMV_MAX_ROWS (GEMV_ROWS > 0 ? GEMV_ROWS : 1)
#define GEMV_PER (16 / (int)sizeof(w_t))
#define GEMV_PAIRS (GEMV_SILU ? 2 : 1) /* weight rows per warp: with `silu`, gate's and up's */
__device__ __forceinline__ void unpack_weights(uint4 bits, float* w) {
  const unsigned u[4] = {bits.x, bits.y, bits.z, bits.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#if KF_WEIGHTS_BF16
    w[2 * i] = __uint_as_float(u[i] << 16);  // the lower-addressed bf16 is the low half
    w[2 * i + 1] = __uint_as_float(u[i] & 0xffff0000u);
#elif KF_WEIGHTS_INT8 || KF_WEIGHTS_FP8
#pragma unroll
    for (int b = 0; b < 4; ++b) w[4 * i + b] = weight((w_t)((u[i] >> (8 * b)) & 0xffu));
#else
    w[i] = __uint_as_float(u[i]);
#endif
  }
}

// acc[m] += the products of A's row m at k .. k + GEMV_PER - 1 with the weights w (times gamma there, with the fused
// norm: gamma scales the weight, once for every row).
__device__ __forceinline__ void add_products(float* acc, const float* __restrict__ A, int lda, int M, int k, float* w,
                                             const float* __restrict__ gamma) {
#if GEMV_NORM
  if (gamma != 0)
#pragma unroll
    for (int j = 0; j < GEMV_PER; ++j) w[j] *= gamma[k + j];
#endif
#pragma unroll
  for (int m = 0; m < GEMV_MAX_ROWS; ++m)
    if (m < M) {
      const float* a = A + (long long)m * lda + k;
#pragma unroll
      for (int j = 0; j < GEMV_PER; ++j) acc[m] += a[j] * w[j];
    }
}

// With `norm` (GEMV_NORM: the RMSNorm before the projection fused into it), each row of A is the norm's raw input:
// after the products, the warp sums the rows' squares in a second pass over A (a few KiB, in cache by then; summed in
// the main loop, or row by row after it, ptxas spilled) and scales its result by
// rsqrt(mean square + eps); gamma (when not folded into W) scales each weight. Compiled only with the genome's
// GEMV_NORM, so that kf_gemv without it is the code it was. With `silu` (GEMV_SILU: the MLP's activation fused into
// its gate and up projection), W holds 2N rows, gate's then up's, and the warp of output n streams rows n and N + n
// and writes SiLU(gate) * up (each sum scaled as an output of its own first): no kf_silu_mul launch, no [gate | up]
// rows written and read again. The arguments after col_scale come last: a module written before them declares fewer
// parameters and never reads them.
extern "C" __global__ void __launch_bounds__(GEMV_WARPS * 32)
kf_gemv(const float* __restrict__ A, int lda, const w_t* __restrict__ W, float* C, int ldc, int M, int N, int K,
        const float* __restrict__ row_scale, int accumulate, const float* __restrict__ col_scale, int norm,
        const float* __restrict__ gamma, float eps, int silu) {
  const int lane = threadIdx.x & 31, n = blockIdx.x * GEMV_WARPS + (threadIdx.x >> 5);
  if (n >= N) return;  // the whole warp leaves: nothing below waits on other warps
#if GEMV_SILU
  const int pairs = silu ? 2 : 1;  // the same for the whole warp
#else
  const int pairs = 1;
#endif
  const w_t* row[GEMV_PAIRS];
  float acc[GEMV_PAIRS][GEMV_MAX_ROWS];
  bool aligned = true;
#pragma unroll
  for (int p = 0; p < GEMV_PAIRS; ++p) {
    row[p] = W + (long long)(p * N + n) * K;
    if (p < pairs) aligned = aligned && ((unsigned long long)row[p] & 15) == 0;
#pragma unroll
    for (int m = 0; m < GEMV_MAX_ROWS; ++m) acc[p][m] = 0.f;
  }
  int vectored = 0;
  if (aligned) {
    vectored = K / GEMV_PER * GEMV_PER;
    // GEMV_UNROLL vectors per lane in flight before the first is used: with one, a warp waits out the memory's whole
    // latency for every 512 bytes, and projections of a few thousand outputs leave most of the bandwidth unused.
    const int stride = 32 * GEMV_PER;
    int k = lane * GEMV_PER;
    for (; k + (GEMV_UNROLL - 1) * stride < vectored; k += GEMV_UNROLL * stride) {
      uint4 bits[GEMV_PAIRS][GEMV_UNROLL];
#pragma unroll
      for (int p = 0; p < GEMV_PAIRS; ++p)
#pragma unroll
        for (int u = 0; u < GEMV_UNROLL; ++u)
          if (p < pairs) bits[p][u] = *reinterpret_cast<const uint4*>(row[p] + k + u * stride);
#pragma unroll
      for (int p = 0; p < GEMV_PAIRS; ++p)
#pragma unroll
        for (int u = 0; u < GEMV_UNROLL; ++u)
          if (p < pairs) {
            float w[GEMV_PER];
            unpack_weights(bits[p][u], w);
            add_products(acc[p], A, lda, M, k + u * stride, w, gamma);
          }
    }
    for (; k < vectored; k += stride)
#pragma unroll
      for (int p = 0; p < GEMV_PAIRS; ++p)
        if (p < pairs) {
          float w[GEMV_PER];
          unpack_weights(*reinterpret_cast<const uint4*>(row[p] + k), w);
          add_products(acc[p], A, lda, M, k, w, gamma);
        }
  }
  for (int k = vectored + lane; k < K; k += 32)
#pragma unroll
    for (int p = 0; p < GEMV_PAIRS; ++p)
      if (p < pairs) {
#if GEMV_NORM
        const float w = weight(row[p][k]) * (gamma != 0 ? gamma[k] : 1.f);
#else
        const float w = weight(row[p][k]);
#endif
#pragma unroll
        for (int m = 0; m < GEMV_MAX_ROWS; ++m)
          if (m < M) acc[p][m] += A[(long long)m * lda + k] * w;
      }
#if GEMV_NORM
  float sq[GEMV_MAX_ROWS];  // each row's squares, all rows in one pass
#pragma unroll
  for (int m = 0; m < GEMV_MAX_ROWS; ++m) sq[m] = 0.f;
  if (norm)
    for (int k = lane; k < K; k += 32)
#pragma unroll
      for (int m = 0; m < GEMV_MAX_ROWS; ++m)
        if (m < M) sq[m] += A[(long long)m * lda + k] * A[(long long)m * lda + k];
#endif
#pragma unroll
  for (int m = 0; m < GEMV_MAX_ROWS; ++m) {
    float sum[GEMV_PAIRS];
#pragma unroll
    for (int p = 0; p < GEMV_PAIRS; ++p) sum[p] = p < pairs ? warp_sum(acc[p][m]) : 0.f;  // every lane shuffles
#if GEMV_NORM
    const float squares = norm ? warp_sum(sq[m]) : 0.f;  // `norm` is the same for the whole warp
#endif
    if (m < M && lane == 0) {
      float* c = C + (long long)m * ldc + n;
#if GEMV_NORM
      // __fdividef: the mean square needs no IEEE division (a call with a frame of its own)
      const float inv_rms = norm ? rsqrtf(__fdividef(squares, (float)K) + eps) : 1.f;
#else
      const float inv_rms = 1.f;
#endif
      float v = sum[0] * inv_rms * (row_scale != 0 ? row_scale[m] : 1.f) * (col_scale != 0 ? col_scale[n] : 1.f);
#if GEMV_SILU
      if (silu) {
        const float up =
            sum[1] * inv_rms * (row_scale != 0 ? row_scale[m] : 1.f) * (col_scale != 0 ? col_scale[N + n] : 1.f);
        v = v / (1.f + expf(-v)) * up;  // kf_silu_mul's arithmetic
      }
#endif
      *c = accumulate ? *c + v : v;
    }
  }
}
)CUDA";
}

}  // namespace kforge::kernels::cuda::engine::text
