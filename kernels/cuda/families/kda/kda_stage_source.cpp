// The KDA templates' common part (kda_family.hpp): the stage layout of a chunk and its cp.async load, which the
// strict templates (kda_source.cpp) and the tensor-core one (kda_tc_source.cpp) share. KF_BF16 (the render's) picks
// the inputs' precision: bf16 for kda_bf16 and kda_bf16_tc, fp32 for kda.
#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {

const char* kda_stage_text() {
  return R"CUDA(
#define D 128
#define THREADS (WARPS * 32)
#if KF_BF16
typedef unsigned short in_t;  // bf16 bits
#define IN_BYTES 2
#else
typedef float in_t;
#define IN_BYTES 4
#endif
// A stage: q, k [CHUNK][D] and v [CHUNK][BV] as in_t, then g fp32 [CHUNK][D] and beta fp32 [CHUNK]. Every part's
// size is a multiple of 16 bytes (CHUNK, BV >= 16), so every cp.async destination is aligned.
#define STAGE_BYTES (CHUNK * D * 4 + CHUNK * 4 + (2 * CHUNK * D + CHUNK * BV) * IN_BYTES)
#define IN_PER_16B (16 / IN_BYTES)

__device__ __forceinline__ float bf16_to_float(unsigned short x) { return __uint_as_float((unsigned)x << 16); }
#if KF_BF16
__device__ __forceinline__ float widen(in_t x) { return bf16_to_float(x); }
__device__ __forceinline__ in_t narrow(float x) { return float_to_bf16(x); }
#else
__device__ __forceinline__ float widen(in_t x) { return x; }
__device__ __forceinline__ in_t narrow(float x) { return x; }
#endif

// Tokens past the sequence's T load as zeros: g = 0, k = q = v = beta = 0 leave the state untouched. `first`: the
// sequence's first token.
__device__ void load_chunk(unsigned char* stage, const in_t* q, const in_t* k, const in_t* v, const float* g,
                           const in_t* beta, size_t first, int T, int H, int h, int t0, int v0) {
  in_t* sq = reinterpret_cast<in_t*>(stage);
  in_t* sk = sq + CHUNK * D;
  in_t* sv = sk + CHUNK * D;
  float* sg = reinterpret_cast<float*>(sv + CHUNK * BV);
  float* sbeta = sg + CHUNK * D;
  for (int c = threadIdx.x; c < CHUNK * (D / IN_PER_16B); c += THREADS) {
    const int i = c / (D / IN_PER_16B), col = (c % (D / IN_PER_16B)) * IN_PER_16B;
    const bool ok = t0 + i < T;
    const size_t at = ok ? ((first + t0 + i) * H + h) * D + col : 0;
    cp_async16(sq + i * D + col, q + at, ok);
    cp_async16(sk + i * D + col, k + at, ok);
  }
  for (int c = threadIdx.x; c < CHUNK * (D / 4); c += THREADS) {
    const int i = c / (D / 4), col = (c % (D / 4)) * 4;
    const bool ok = t0 + i < T;
    cp_async16(sg + i * D + col, g + (ok ? ((first + t0 + i) * H + h) * D + col : 0), ok);
  }
  for (int c = threadIdx.x; c < CHUNK * (BV / IN_PER_16B); c += THREADS) {
    const int i = c / (BV / IN_PER_16B), col = (c % (BV / IN_PER_16B)) * IN_PER_16B;
    const bool ok = t0 + i < T;
    cp_async16(sv + i * BV + col, v + (ok ? ((first + t0 + i) * H + h) * D + v0 + col : 0), ok);
  }
  for (int i = threadIdx.x; i < CHUNK; i += THREADS) {
    const bool ok = t0 + i < T;
#if KF_BF16  // cp.async copies 4, 8 or 16 bytes; one bf16 is 2: a plain load, widened, seen after the chunk's barrier
    sbeta[i] = ok ? widen(beta[(first + t0 + i) * H + h]) : 0.f;
#else
    cp_async4(sbeta + i, beta + (ok ? (first + t0 + i) * H + h : 0), ok);
#endif
  }
}
)CUDA";
}

}  // namespace kforge::kernels::cuda
