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
// TC_BK-deep slices of A and W; each of its four warps a 32 x 32 quarter, as 2 x 4 tiles of m16n8. Row scale,
// accumulate: as kf_gemm.
// The pipeline: cp.async brings slice s + 1 of A (fp32) and W (bf16) into the other of two stages while the warps
// multiply slice s, so the loads' latency hides behind the tensor cores without a register per element in flight;
// each slice's activations are split once per block (into `ap`, not once per warp that reads them), and every
// fragment is one ldmatrix.x4. Where rows are not 16-byte vectors (K not a multiple of 8, lda of 4, or an unaligned
// matrix) the copies are 4 bytes each (A) or plain loads (W): the same result, slower.
#if KF_ACT_BF16
#define TC_PARTS 1
#else
#define TC_PARTS 3
#endif
#define TC_BM 64
#define TC_BN 64
#define TC_BK 32
#define TC_LDF (TC_BK + 4) /* floats per staged row of A: 16-byte rows for cp.async */
#define TC_LDH (TC_BK + 8) /* bf16 per row of ap and ws: 16-byte rows whose 8 ldmatrix addresses hit 8 bank groups */
// mma_bf16, ldmatrix_x4, cp_async*: the cuda families' PTX helpers (kernels/cuda/families/ptx_helpers.cpp), in the
// module with GEMM_TC; kf_bf16_bits / kf_bf16_value: the module's bf16 rounding and widening
// (cuda_engine_dense_text.cpp). A two-stage register-prefetch form took 136-168 registers (ptxas 13.0); this one keeps
// nothing in flight in registers. Five blocks a multiprocessor (at most 102 registers; 5 x 43 KiB of shared memory
// fit in 228): ptxas, left alone, took up to 123.

#if GEMM_TC && KF_WEIGHTS_BF16
// Issues the copies of slice k0 of A (rows m0.., into af) and W (rows n0.., into wh); what lies past M, N or K
// lands as zeros.
__device__ __forceinline__ void kf_gemm_tc_stage(float (*af)[TC_LDF], unsigned short (*wh)[TC_LDH],
                                                 const float* __restrict__ A, int lda, const w_t* __restrict__ W,
                                                 int M, int N, int K, int m0, int n0, int k0, bool vectors) {
  const int tid = threadIdx.x;
  if (vectors) {
    for (int e = tid; e < TC_BM * (TC_BK / 4); e += 128) {  // 4 floats a copy
      const int r = e / (TC_BK / 4), c = 4 * (e % (TC_BK / 4)), m = m0 + r, k = k0 + c;
      const bool in = m < M && k < K;
      cp_async16(&af[r][c], in ? A + (long long)m * lda + k : A, in);
    }
    for (int e = tid; e < TC_BN * (TC_BK / 8); e += 128) {  // 8 weights a copy
      const int r = e / (TC_BK / 8), c = 8 * (e % (TC_BK / 8)), n = n0 + r, k = k0 + c;
      const bool in = n < N && k < K;
      cp_async16(&wh[r][c], in ? W + (long long)n * K + k : W, in);
    }
    return;
  }
  for (int e = tid; e < TC_BM * TC_BK; e += 128) {
    const int r = e / TC_BK, c = e % TC_BK, m = m0 + r, k = k0 + c;
    const bool in = m < M && k < K;
    cp_async4(&af[r][c], in ? A + (long long)m * lda + k : A, in);
  }
  for (int e = tid; e < TC_BN * TC_BK; e += 128) {
    const int r = e / TC_BK, c = e % TC_BK, n = n0 + r, k = k0 + c;
    wh[r][c] = (n < N && k < K) ? (unsigned short)W[(long long)n * K + k] : (unsigned short)0;
  }
}
#endif

extern "C" __global__ void __launch_bounds__(128, 5)
kf_gemm_tc(const float* __restrict__ A, int lda, const w_t* __restrict__ W, float* C, int ldc, int M, int N, int K,
           const float* __restrict__ row_scale, int accumulate) {
#if GEMM_TC && KF_WEIGHTS_BF16  // the body only where the genome launches it (the kernel stays, as every module's)
  __shared__ __align__(16) float af[2][TC_BM][TC_LDF];                 // A's slices as loaded, two stages
  __shared__ __align__(16) unsigned short ws[2][TC_BN][TC_LDH];        // W's rows n: bf16 at k, two stages
  __shared__ __align__(16) unsigned short ap[TC_PARTS][TC_BM][TC_LDH];  // the slice's parts hi (, mid, lo)
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int q = lane >> 3, qr = lane & 7;  // the ldmatrix matrix whose row address this lane gives, and the row
  const int m0 = blockIdx.y * TC_BM, n0 = blockIdx.x * TC_BN, wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  const bool vectors = ((lda & 3) | (K & 7)) == 0 && (((unsigned long long)A | (unsigned long long)W) & 15) == 0;
  float acc[2][4][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  const int slices = (K + TC_BK - 1) / TC_BK;
  kf_gemm_tc_stage(af[0], ws[0], A, lda, W, M, N, K, m0, n0, 0, vectors);
  cp_async_commit();
  for (int s = 0; s < slices; ++s) {
    const int stage = s & 1;
    cp_async_wait<0>();  // slice s's copies (this thread's) landed
    __syncthreads();     // everyone's; and no warp still reads ap or the other stage
    for (int e = tid; e < TC_BM * TC_BK / 2; e += 128) {  // split a pair of columns (k, k + 1) per element
      const int r = e / (TC_BK / 2), c = 2 * (e % (TC_BK / 2));
      unsigned part[TC_PARTS];
#pragma unroll
      for (int p = 0; p < TC_PARTS; ++p) part[p] = 0u;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float rest = af[stage][r][c + h];
#pragma unroll
        for (int p = 0; p < TC_PARTS; ++p) {  // each subtraction exact
          const unsigned bits = kf_bf16_bits(rest);
          part[p] |= bits << (16 * h);  // the lower-indexed element in the low half, as mma reads a pair
          rest -= kf_bf16_value(bits);
        }
      }
#pragma unroll
      for (int p = 0; p < TC_PARTS; ++p) *(unsigned*)&ap[p][r][c] = part[p];
    }
    if (s + 1 < slices)
      kf_gemm_tc_stage(af[stage ^ 1], ws[stage ^ 1], A, lda, W, M, N, K, m0, n0, (s + 1) * TC_BK, vectors);
    cp_async_commit();  // (an empty group after the last slice)
    __syncthreads();    // ap complete
#pragma unroll
    for (int kk = 0; kk < TC_BK; kk += 16) {
      unsigned b[4][2];
#pragma unroll
      for (int jp = 0; jp < 2; ++jp) {  // matrices (j, k lo), (j, k hi), (j + 1, k lo), (j + 1, k hi) of B's columns
        unsigned r[4];
        ldmatrix_x4(r, &ws[stage][wn + (2 * jp + (q >> 1)) * 8 + qr][kk + (q & 1) * 8]);
        b[2 * jp][0] = r[0];
        b[2 * jp][1] = r[1];
        b[2 * jp + 1][0] = r[2];
        b[2 * jp + 1][1] = r[3];
      }
#pragma unroll
      for (int p = TC_PARTS - 1; p >= 0; --p)  // the small parts first
#pragma unroll
        for (int i = 0; i < 2; ++i) {  // matrices (rows lo, k lo), (rows hi, k lo), (rows lo, k hi), (rows hi, k hi)
          unsigned a[4];
          ldmatrix_x4(a, &ap[p][wm + i * 16 + (q & 1) * 8 + qr][kk + (q >> 1) * 8]);
#pragma unroll
          for (int j = 0; j < 4; ++j) mma_bf16(acc[i][j], a, b[j]);
        }
    }
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
