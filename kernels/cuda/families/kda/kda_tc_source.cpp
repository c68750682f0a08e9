// The KDA forward template of kda_bf16_tc, the tensor-core contract (kda_family.hpp): the chunked algorithm of
// kda_source.cpp with the chunk's products on mma.sync.m16n8k16 (bf16 operands, fp32 accumulation), as FLA's
// chunk_kda runs them:
//   A = (e^G k)(e^{-G} k)^T, B = (e^G q)(e^{-G} k)^T  [CHUNK x D] x [D x CHUNK], below the diagonal tiles
//   U = (e^G k) S0 and O = (e^G q) S0            [CHUNK x D] x [D x BV], S0 the state before the chunk, as bf16
//   o = O + B delta                              [CHUNK x CHUNK] x [CHUNK x BV], delta as bf16
//   S = Diag(e^{G_C}) S0 + (k e^{G_C - G})^T delta  [D x CHUNK] x [CHUNK x BV]
// The state itself stays fp32 (only its bf16 copy feeds the products); the cumulative gate, the decayed operands,
// the diagonal 16 x 16 tiles of A and B and the forward substitution are fp32 SIMT.
// Operands are bf16 in shared memory with rows padded by 8 halves (the 8 rows an ldmatrix reads fall on different
// banks); every 16 x 16 output tile is one warp's, tiles dealt round-robin over the warps.
// Inputs and outputs as kda_bf16's: q, k, v, beta bf16, g fp32, o bf16, the final state fp32; D = 128.
// cp.async, ldmatrix, mma and bf16 rounding are the shared PTX helpers (ptx_helpers.hpp); the chunk's stage layout
// and load, kda_stage_source.cpp.
#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {

const char* kda_tc_kernel_body() {
  return R"CUDA(
#define DP (D + 8)
#define BVP (BV + 8)
#define CP (CHUNK + 8)

// One warp's 16 x 16 tile of X Y over k = 0 .. K-1 (K a multiple of 16) into acc[2][4] (the two 16 x 8 halves, in
// mma's C layout). X is [m][k] row-major from (row m0, k 0), or with X_T its transpose stored [k][m] (from k 0,
// column m0); Y is [k][n] row-major from (k 0, column n0), or with Y_T its transpose stored [n][k] (from row n0).
template <bool X_T, bool Y_T = false>
__device__ __forceinline__ void mma_tile(float acc[2][4], const bf16_t* X, int ldx, int m0, const bf16_t* Y, int ldy,
                                         int n0, int K, int lane) {
#pragma unroll 2
  for (int k0 = 0; k0 < K; k0 += 16) {
    unsigned a[4], b[4];
    if (X_T)
      ldmatrix_x4_trans(a, X + (k0 + lane % 8 + (lane / 16) * 8) * ldx + m0 + ((lane / 8) % 2) * 8);
    else
      ldmatrix_x4(a, X + (m0 + lane % 16) * ldx + k0 + (lane / 16) * 8);
    if (Y_T)
      ldmatrix_x4(b, Y + (n0 + lane % 8 + (lane / 16) * 8) * ldy + k0 + ((lane / 8) % 2) * 8);
    else
      ldmatrix_x4_trans(b, Y + (k0 + lane % 8 + ((lane / 8) % 2) * 8) * ldy + n0 + (lane / 16) * 8);
    mma_bf16(acc[0], a, b);
    mma_bf16(acc[1], a, b + 2);
  }
}

// Where element e (0..7) of a lane's acc[2][4] lies in its 16 x 16 tile.
__device__ __forceinline__ int tile_row(int lane, int e) { return lane / 4 + ((e % 4) / 2) * 8; }
__device__ __forceinline__ int tile_col(int lane, int e) { return (e / 4) * 8 + (lane % 4) * 2 + e % 2; }

extern "C" __global__ void __launch_bounds__(THREADS, 1)
kforge_kda(const bf16_t* __restrict__ q, const bf16_t* __restrict__ k, const bf16_t* __restrict__ v,
           const float* __restrict__ g, const bf16_t* __restrict__ beta, const int* __restrict__ cu_seqlens,
           bf16_t* __restrict__ o, float* __restrict__ state_out, int H) {
  KF_DYNAMIC_SHARED(smem);
  float* S = reinterpret_cast<float*>(smem + STAGES * STAGE_BYTES);  // [D][BV] fp32
  float* Af = S + D * BV;                                            // [CHUNK][CHUNK], beta_i folded in
  float* Wf = Af + CHUNK * CHUNK;                                    // [CHUNK][BV]: right-hand side, then delta
  float* Of = Wf + CHUNK * BV;                                       // [CHUNK][BV]: inter-chunk part of o
  float* G_last = Of + CHUNK * BV;                                   // [D]
  bf16_t* Sb = reinterpret_cast<bf16_t*>(G_last + D);                // [D][BVP]: S as an operand
  bf16_t* Qd = Sb + D * BVP;                                         // [CHUNK][DP]: q e^G / sqrt(D)
  bf16_t* Kd = Qd + CHUNK * DP;                                      // [CHUNK][DP]: k e^G
  bf16_t* Kr = Kd + CHUNK * DP;                                      // [CHUNK][DP]: k e^{G_C - G}
  bf16_t* Ki = Kr + CHUNK * DP;                                      // [CHUNK][DP]: k e^{-G}
  bf16_t* Bb = Ki + CHUNK * DP;                                      // [CHUNK][CP]: B, zero above the diagonal
  bf16_t* Wb = Bb + CHUNK * CP;                                      // [CHUNK][BVP]: delta
  const int v0 = blockIdx.x * BV, h = blockIdx.y, b = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t first = cu_seqlens[b];
  const int T = cu_seqlens[b + 1] - cu_seqlens[b];
  const float scale = rsqrtf((float)D);
  for (int e = threadIdx.x; e < D * BV; e += THREADS) {
    S[e] = 0.f;
    Sb[(e / BV) * BVP + e % BV] = 0;
  }

  const int chunks = (T + CHUNK - 1) / CHUNK;
  for (int s = 0; s < STAGES; ++s) {
    if (s < chunks) load_chunk(smem + s * STAGE_BYTES, q, k, v, g, beta, first, T, H, h, s * CHUNK, v0);
    cp_async_commit();
  }
  for (int n = 0; n < chunks; ++n) {
    const bf16_t* sq = reinterpret_cast<const bf16_t*>(smem + (n % STAGES) * STAGE_BYTES);
    const bf16_t* sk = sq + CHUNK * D;
    const bf16_t* sv = sk + CHUNK * D;
    float* sg = reinterpret_cast<float*>(const_cast<bf16_t*>(sv + CHUNK * BV));
    const float* sbeta = sg + CHUNK * D;
    const int t0 = n * CHUNK;
    cp_async_wait<STAGES - 1>();
    __syncthreads();
    // 1. the cumulative gate G in place of g.
    for (int c = threadIdx.x; c < D; c += THREADS) {
      float run = 0.f;
      for (int i = 0; i < CHUNK; ++i) sg[i * D + c] = run += sg[i * D + c];
      G_last[c] = run;
    }
    __syncthreads();
    // 2. the decayed operands, and A (strictly lower, times beta_i) and B (lower with the diagonal) in fp32.
    for (int e = threadIdx.x; e < CHUNK * D; e += THREADS) {
      const int i = e / D, c = e % D;
      const float G = sg[e], kk = widen(sk[e]), decay = __expf(G);
      Qd[i * DP + c] = float_to_bf16(widen(sq[e]) * scale * decay);
      Kd[i * DP + c] = float_to_bf16(kk * decay);
      Kr[i * DP + c] = float_to_bf16(kk * __expf(G_last[c] - G));
      Ki[i * DP + c] = float_to_bf16(kk * __expf(-G));
    }
    __syncthreads();
    // 2b. A and B, a 16 x 16 tile per warp: below the diagonal on the tensor cores, A = (e^G k)(e^{-G} k)^T and
    // B = (e^G q)(e^{-G} k)^T, each exponent G_i - G_j split at the chunk's start (with alpha >= 0.5, the family's gate
    // range, |G| <= CHUNK ln 2 <= 45: e^{+-G} stays far inside bf16's range); the diagonal tiles in fp32 from the
    // inputs, as FLA's diagonal sub-chunks: q_i . k_i of unit vectors is a small sum of large terms, which bf16
    // operands would leave a few percent off, and it scales the whole output of a sequence of one token.
    for (int tile = warp; tile < (CHUNK / 16) * (CHUNK / 16); tile += WARPS) {
      const int m0 = (tile / (CHUNK / 16)) * 16, n0 = (tile % (CHUNK / 16)) * 16;
      float a[2][4] = {}, bq[2][4] = {};
      if (n0 < m0) {
        mma_tile<false, true>(a, Kd, DP, m0, Ki, DP, n0, D, lane);
        mma_tile<false, true>(bq, Qd, DP, m0, Ki, DP, n0, D, lane);
      }
      for (int e = 0; e < 8; ++e) {
        const int i = m0 + tile_row(lane, e), j = n0 + tile_col(lane, e);
        if (n0 == m0 && j <= i)
          for (int c = 0; c < D; ++c) {
            const float kj = widen(sk[j * D + c]) * __expf(sg[i * D + c] - sg[j * D + c]);
            a[e / 4][e % 4] += widen(sk[i * D + c]) * kj;
            bq[e / 4][e % 4] += widen(sq[i * D + c]) * kj * scale;
          }
        Af[i * CHUNK + j] = j < i ? a[e / 4][e % 4] * sbeta[i] : 0.f;
        Bb[i * CP + j] = float_to_bf16(j <= i ? bq[e / 4][e % 4] : 0.f);
      }
    }
    __syncthreads();
    // 3. on the tensor cores: U = Kd S0 and O = Qd S0; the right-hand side beta (v - U).
    for (int tile = warp; tile < (CHUNK / 16) * (BV / 16); tile += WARPS) {
      const int m0 = (tile / (BV / 16)) * 16, n0 = (tile % (BV / 16)) * 16;
      float u[2][4] = {}, out[2][4] = {};
      mma_tile<false>(u, Kd, DP, m0, Sb, BVP, n0, D, lane);
      mma_tile<false>(out, Qd, DP, m0, Sb, BVP, n0, D, lane);
      for (int e = 0; e < 8; ++e) {
        const int i = m0 + tile_row(lane, e), col = n0 + tile_col(lane, e);
        Wf[i * BV + col] = sbeta[i] * (widen(sv[i * BV + col]) - u[e / 4][e % 4]);
        Of[i * BV + col] = out[e / 4][e % 4];
      }
    }
    __syncthreads();
    // 4. forward substitution in fp32, one value column per thread; delta as a bf16 operand.
    for (int col = threadIdx.x; col < BV; col += THREADS)
      for (int i = 0; i < CHUNK; ++i) {
        float acc = Wf[i * BV + col];
        for (int j = 0; j < i; ++j) acc -= Af[i * CHUNK + j] * Wf[j * BV + col];
        Wf[i * BV + col] = acc;
        Wb[i * BVP + col] = float_to_bf16(acc);
      }
    __syncthreads();
    // 5. on the tensor cores: o = O + B delta, and S = e^{G_C} S0 + Kr^T delta (with its bf16 copy).
    for (int tile = warp; tile < (CHUNK / 16) * (BV / 16); tile += WARPS) {
      const int m0 = (tile / (BV / 16)) * 16, n0 = (tile % (BV / 16)) * 16;
      float acc[2][4] = {};
      mma_tile<false>(acc, Bb, CP, m0, Wb, BVP, n0, CHUNK, lane);
      for (int e = 0; e < 8; ++e) {
        const int i = m0 + tile_row(lane, e), col = n0 + tile_col(lane, e);
        if (t0 + i < T) o[((first + t0 + i) * H + h) * D + v0 + col] = float_to_bf16(Of[i * BV + col] + acc[e / 4][e % 4]);
      }
    }
    for (int tile = warp; tile < (D / 16) * (BV / 16); tile += WARPS) {
      const int m0 = (tile / (BV / 16)) * 16, n0 = (tile % (BV / 16)) * 16;
      float acc[2][4] = {};
      mma_tile<true>(acc, Kr, DP, m0, Wb, BVP, n0, CHUNK, lane);
      for (int e = 0; e < 8; ++e) {
        const int c = m0 + tile_row(lane, e), col = n0 + tile_col(lane, e);
        const float s = __expf(G_last[c]) * S[c * BV + col] + acc[e / 4][e % 4];
        S[c * BV + col] = s;
        Sb[c * BVP + col] = float_to_bf16(s);
      }
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
