// The gemm kernel template: C (fp32, M x N) = A (bf16, M x K) * B (bf16, K x N), all row-major, fp32
// accumulation on the tensor cores with mma.sync.m16n8k16 (valid on sm_80 and later, so on sm_90a and
// sm_100a alike). Tiles stream through a STAGES-deep cp.async ring in dynamic shared memory; each warp owns a
// WM x WN tile of C held in registers, through the shared PTX helpers (ptx_helpers.hpp), so that NVRTC needs no
// header. Requires K % 8 == 0 and N % 8 == 0 (16-byte cp.async chunks); any M.
#include "gemm/gemm_family.hpp"

namespace kforge::kernels::cuda {

const char* gemm_kernel_body() {
  return R"CUDA(
#define WARPS_M (BM / WM)
#define WARPS_N (BN / WN)
#define THREADS (WARPS_M * WARPS_N * 32)
#define MI (WM / 16)
#define NI (WN / 8)
#define A_STRIDE (BK + 8) /* halves; the pad puts the 8 rows of an ldmatrix on different banks */
#define B_STRIDE (BN + 8)
#define A_STAGE (BM * A_STRIDE)
#define B_STAGE (BK * B_STRIDE)



__device__ __forceinline__ void load_tiles(bf16_t* sA, bf16_t* sB, const bf16_t* A, const bf16_t* B, int M, int N,
                                           int K, int m0, int n0, int k0) {
  for (int c = threadIdx.x; c < BM * BK / 8; c += THREADS) {
    const int r = c / (BK / 8), col = (c % (BK / 8)) * 8;
    const bool ok = m0 + r < M && k0 + col < K;
    cp_async16(sA + r * A_STRIDE + col, ok ? A + (size_t)(m0 + r) * K + k0 + col : A, ok);
  }
  for (int c = threadIdx.x; c < BK * BN / 8; c += THREADS) {
    const int r = c / (BN / 8), col = (c % (BN / 8)) * 8;
    const bool ok = k0 + r < K && n0 + col < N;
    cp_async16(sB + r * B_STRIDE + col, ok ? B + (size_t)(k0 + r) * N + n0 + col : B, ok);
  }
}

__device__ __forceinline__ void compute_stage(float acc[MI][NI][4], const bf16_t* sA, const bf16_t* sB, int warp_m,
                                              int warp_n, int lane) {
#pragma unroll
  for (int kk = 0; kk < BK; kk += 16) {
    unsigned a[MI][4], b[NI][2];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
      ldmatrix_x4(a[mi], sA + (warp_m * WM + mi * 16 + lane % 16) * A_STRIDE + kk + (lane / 16) * 8);
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) {
      unsigned r[4];
      ldmatrix_x4_trans(r, sB + (kk + lane % 8 + ((lane / 8) % 2) * 8) * B_STRIDE + warp_n * WN + nj * 16 +
                               (lane / 16) * 8);
      b[2 * nj][0] = r[0]; b[2 * nj][1] = r[1];
      b[2 * nj + 1][0] = r[2]; b[2 * nj + 1][1] = r[3];
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) mma_bf16(acc[mi][ni], a[mi], b[ni]);
  }
}

// Blocks are numbered in groups of GROUP_M block rows so that neighbours share tiles of B in L2.
__device__ __forceinline__ void block_tile(int M, int N, int* m0, int* n0) {
  const int blocks_m = (M + BM - 1) / BM, blocks_n = (N + BN - 1) / BN;
  const int per_group = GROUP_M * blocks_n, pid = blockIdx.x;
  const int first_m = (pid / per_group) * GROUP_M;
  const int group_rows = min(blocks_m - first_m, GROUP_M);
  *m0 = (first_m + (pid % per_group) % group_rows) * BM;
  *n0 = ((pid % per_group) / group_rows) * BN;
}

extern "C" __global__ void __launch_bounds__(THREADS)
kforge_gemm(const bf16_t* __restrict__ A, const bf16_t* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  KF_DYNAMIC_SHARED(smem);
  bf16_t* sA = reinterpret_cast<bf16_t*>(smem);
  bf16_t* sB = sA + STAGES * A_STAGE;
  int m0, n0;
  block_tile(M, N, &m0, &n0);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / WARPS_N, warp_n = warp % WARPS_N;

  float acc[MI][NI][4];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) acc[mi][ni][0] = acc[mi][ni][1] = acc[mi][ni][2] = acc[mi][ni][3] = 0.f;

  const int k_tiles = (K + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_tiles(sA + s * A_STAGE, sB + s * B_STAGE, A, B, M, N, K, m0, n0, s * BK);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // tile kt has landed
    __syncthreads();              // ... for every thread, and everyone is done with tile kt - 1
    const int next = kt + STAGES - 1;
    if (next < k_tiles)
      load_tiles(sA + (next % STAGES) * A_STAGE, sB + (next % STAGES) * B_STAGE, A, B, M, N, K, m0, n0, next * BK);
    cp_async_commit();
    compute_stage(acc, sA + (kt % STAGES) * A_STAGE, sB + (kt % STAGES) * B_STAGE, warp_m, warp_n, lane);
  }

#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      const int row = m0 + warp_m * WM + mi * 16 + lane / 4;
      const int col = n0 + warp_n * WN + ni * 8 + (lane % 4) * 2;  // even, and N % 8 == 0: col < N covers col + 1
      if (col < N) {
        if (row < M) *reinterpret_cast<float2*>(C + (size_t)row * N + col) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
        if (row + 8 < M)
          *reinterpret_cast<float2*>(C + (size_t)(row + 8) * N + col) = make_float2(acc[mi][ni][2], acc[mi][ni][3]);
      }
    }
}
)CUDA";
}

}  // namespace kforge::kernels::cuda
