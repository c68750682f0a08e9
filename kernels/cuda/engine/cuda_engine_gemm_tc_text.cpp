// The cuda engine module's kf_gemm_tc (cuda_engine_source.hpp, gene GEMM_TC): the projections of the steps that feed
// prompts on tensor cores, for bf16 weights, held to the fp32 engine's tolerance (or, with bf16 activations, to the
// activation contract's).
#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine::text {

const char* engine_gemm_tc() {
  return R"CUDA(
// kf_gemm's result on tensor cores (GEMM_TC, bf16 weights, the projections kf_gemv does not serve): mma.sync
// m16n8k16 with bf16 operands and fp32 accumulation. The weights are bf16 already; each fp32 activation is split
// exactly into three bf16 parts, hi = bf16(a), mid = bf16(a - hi), lo = bf16(a - hi - mid) (each subtraction exact
// in fp32), whose sum is a to within 2^-24 of it: every product of a part and a weight is exact in fp32, so the
// projection is the fp32 engine's to its rounding, and "Correctness" (1e-4 of the row's largest logit) holds
// unchanged, at three tensor-core products per weight. With bf16 activations (KF_ACT_BF16, the activation contract
// of docs/engines.md), a is hi alone: one product per weight. A block computes a TC_BM x TC_BN tile of C from
// TC_BK-deep slices of A (split into shared memory as its TC_PARTS parts) and W; each of its four warps a 32 x 32
// quarter, as 2 x 4 tiles of m16n8. Row scale, accumulate: as kf_gemm.
#if KF_ACT_BF16
#define TC_PARTS 1
#else
#define TC_PARTS 3
#endif
#define TC_BM 64
#define TC_BN 64
#define TC_BK 32
#define TC_LDW (TC_BK / 2 + 4) /* 32-bit words (bf16 pairs) per shared row: rows fall on different banks */
// mma_bf16: the cuda families' PTX helper (kernels/cuda/families/ptx_helpers.cpp), in the module with GEMM_TC;
// kf_bf16_bits / kf_bf16_value: the module's bf16 rounding and widening (cuda_engine_dense_text.cpp).
// One stage of shared memory and occupancy for latency: a two-stage register-prefetch form took 136-168 registers
// (ptxas 13.0) where this one takes 54-72, and no GPU has told which pays.

extern "C" __global__ void __launch_bounds__(128)
kf_gemm_tc(const float* __restrict__ A, int lda, const w_t* __restrict__ W, float* C, int ldc, int M, int N, int K,
           const float* __restrict__ row_scale, int accumulate) {
#if GEMM_TC && KF_WEIGHTS_BF16  // the body only where the genome launches it (the kernel stays, as every module's)
  __shared__ unsigned as[TC_PARTS][TC_BM][TC_LDW];  // A's parts hi (, mid, lo): bf16 pairs (k, k + 1), k even
  __shared__ unsigned ws[TC_BN][TC_LDW];            // W's rows n: bf16 pairs (k, k + 1)
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * TC_BM, n0 = blockIdx.x * TC_BN, wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  float acc[2][4][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  for (int k0 = 0; k0 < K; k0 += TC_BK) {
    for (int e = tid; e < TC_BM * TC_BK / 2; e += 128) {  // a pair of columns per element: rows of A and of W
      const int r = e / (TC_BK / 2), c = e % (TC_BK / 2), k = k0 + 2 * c;
      unsigned part[TC_PARTS];
#pragma unroll
      for (int p = 0; p < TC_PARTS; ++p) part[p] = 0u;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = m0 + r;
        float rest = (m < M && k + h < K) ? A[(long long)m * lda + k + h] : 0.f;
#pragma unroll
        for (int p = 0; p < TC_PARTS; ++p) {  // each subtraction exact
          const unsigned bits = kf_bf16_bits(rest);
          part[p] |= bits << (16 * h);  // the lower-indexed element in the low half, as mma reads a pair
          rest -= kf_bf16_value(bits);
        }
      }
#pragma unroll
      for (int p = 0; p < TC_PARTS; ++p) as[p][r][c] = part[p];
      const int n = n0 + r;
      const unsigned w0 = (n < N && k < K) ? (unsigned)W[(long long)n * K + k] : 0u;
      const unsigned w1 = (n < N && k + 1 < K) ? (unsigned)W[(long long)n * K + k + 1] : 0u;
      ws[r][c] = w0 | (w1 << 16);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TC_BK / 2; kk += 8) {  // words: 16 columns per mma
      unsigned b[4][2];
#pragma unroll
      for (int j = 0; j < 4; ++j) {  // B's column n = g: rows 2t, 2t + 1 and 2t + 8, 2t + 9
        b[j][0] = ws[wn + j * 8 + g][kk + t];
        b[j][1] = ws[wn + j * 8 + g][kk + t + 4];
      }
#pragma unroll
      for (int p = TC_PARTS - 1; p >= 0; --p)  // the small parts first
#pragma unroll
        for (int i = 0; i < 2; ++i) {  // A's rows g, g + 8 at columns 2t and 2t + 8
          const int row = wm + i * 16 + g;
          const unsigned a[4] = {as[p][row][kk + t], as[p][row + 8][kk + t], as[p][row][kk + t + 4],
                                 as[p][row + 8][kk + t + 4]};
#pragma unroll
          for (int j = 0; j < 4; ++j) mma_bf16(acc[i][j], a, b[j]);
        }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {  // C's (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1)
        const int m = m0 + wm + i * 16 + g + (e / 2) * 8, n = n0 + wn + j * 8 + 2 * t + e % 2;
        if (m >= M || n >= N) continue;
        float* c = C + (long long)m * ldc + n;
        const float v = acc[i][j][e] * (row_scale != 0 ? row_scale[m] : 1.f);
        *c = accumulate ? *c + v : v;
      }
#endif
}
)CUDA";
}

}  // namespace kforge::kernels::cuda::engine::text
