// The rmsnorm kernel template: y = x / sqrt(mean(x^2) + eps) * w, x and y bf16 [rows, hidden], w bf16
// [hidden], fp32 arithmetic. THREADS_PER_ROW threads share a row and read VEC bf16 per load (VEC * 2 bytes);
// ROWS_PER_BLOCK rows per block. Memory-bound: two passes over x (the second mostly from L2).
// Requires hidden % VEC == 0. No header: bf16 conversions are PTX.
#include "rmsnorm/rmsnorm_family.hpp"

namespace kforge::kernels::cuda {

const char* rmsnorm_kernel_body() {
  return R"CUDA(
#define THREADS (THREADS_PER_ROW * ROWS_PER_BLOCK)
#define WARPS_PER_ROW ((THREADS_PER_ROW + 31) / 32)
typedef unsigned short bf16_t;

#if VEC == 8
typedef uint4 vec_t;
#elif VEC == 4
typedef uint2 vec_t;
#elif VEC == 2
typedef unsigned int vec_t;
#else
typedef unsigned short vec_t;
#endif

__device__ __forceinline__ float bf16_to_f32(bf16_t h) { return __uint_as_float(static_cast<unsigned>(h) << 16); }
__device__ __forceinline__ bf16_t f32_to_bf16(float f) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(f));
  return h;
}

union Pack {
  vec_t v;
  bf16_t h[VEC];
};

__device__ __forceinline__ float row_sum(float s, float* scratch) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
#if WARPS_PER_ROW > 1
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[threadIdx.y * WARPS_PER_ROW + warp] = s;
  __syncthreads();
  s = 0.f;
#pragma unroll
  for (int w = 0; w < WARPS_PER_ROW; ++w) s += scratch[threadIdx.y * WARPS_PER_ROW + w];
#endif
  return s;
}

extern "C" __global__ void __launch_bounds__(THREADS)
kforge_rmsnorm(const bf16_t* __restrict__ x, const bf16_t* __restrict__ w, bf16_t* __restrict__ y, int rows,
               int hidden, float eps) {
  __shared__ float scratch[ROWS_PER_BLOCK * WARPS_PER_ROW];
  const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.y;
  const bool active = row < rows;  // inactive rows still reach __syncthreads in row_sum
  const vec_t* xr = reinterpret_cast<const vec_t*>(x + (size_t)(active ? row : 0) * hidden);
  const int vectors = hidden / VEC;

  float sum = 0.f;
  for (int i = threadIdx.x; active && i < vectors; i += THREADS_PER_ROW) {
    Pack p;
    p.v = xr[i];
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const float f = bf16_to_f32(p.h[e]);
      sum += f * f;
    }
  }
  const float inv_rms = rsqrtf(row_sum(sum, scratch) / hidden + eps);
  if (!active) return;

  const vec_t* wr = reinterpret_cast<const vec_t*>(w);
  vec_t* yr = reinterpret_cast<vec_t*>(y + (size_t)row * hidden);
  for (int i = threadIdx.x; i < vectors; i += THREADS_PER_ROW) {
    Pack px, pw, py;
    px.v = xr[i];
    pw.v = wr[i];
#pragma unroll
    for (int e = 0; e < VEC; ++e) py.h[e] = f32_to_bf16(bf16_to_f32(px.h[e]) * inv_rms * bf16_to_f32(pw.h[e]));
    yr[i] = py.v;
  }
}
)CUDA";
}

}  // namespace kforge::kernels::cuda
