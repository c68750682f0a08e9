#include "cuda_engine_pick.hpp"

#include <algorithm>
#include <cstring>

namespace kforge::kernels::cuda::engine {
namespace {

// Plain CUDA C++ with no header, as the engine modules: it also compiles as host C++ under the CPU emulation of the
// tests. A value is finite unless its exponent is all ones (the test NVRTC and the host compile alike, with no
// math header); "beats" is pick_rows' order: larger, or as large at a lower index (the first of the largest).
constexpr const char* kPickText = R"CUDA(
#define KF_PICK_THREADS 256
#define KF_PICK_LOADS 16
#define KF_PICK_NONE 0x7fffffff

__device__ __forceinline__ int kf_pick_not_finite(float v) {
  return (__float_as_uint(v) & 0x7f800000u) == 0x7f800000u ? 1 : 0;
}
__device__ __forceinline__ int kf_pick_beats(float a, int ai, float b, int bi) {
  return a > b || (a == b && ai < bi);
}

// The block's best (value, index) and whether any thread saw a value that is not finite, in element 0.
__device__ void kf_pick_reduce(float* value, int* index, int* bad) {
  for (int stride = KF_PICK_THREADS / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    const int t = threadIdx.x;
    if (t < stride) {
      if (kf_pick_beats(value[t + stride], index[t + stride], value[t], index[t])) {
        value[t] = value[t + stride];
        index[t] = index[t + stride];
      }
      bad[t] |= bad[t + stride];
    }
  }
  __syncthreads();
}

// grid (chunks, rows): chunk blockIdx.x of row blockIdx.y; its largest logit and the lowest index of it, or the index
// -1 when the chunk holds a logit that is not finite.
extern "C" __global__ void __launch_bounds__(KF_PICK_THREADS, 1)
    kf_pick_part(const float* __restrict__ logits, int vocab, float* __restrict__ part_value,
                 int* __restrict__ part_index) {
  __shared__ float value[KF_PICK_THREADS];
  __shared__ int index[KF_PICK_THREADS];
  __shared__ int bad[KF_PICK_THREADS];
  const int t = threadIdx.x;
  const float* row = logits + (long long)blockIdx.y * (long long)vocab;
  const int first = (int)blockIdx.x * KF_PICK_THREADS * KF_PICK_LOADS + t;
  float v[KF_PICK_LOADS];
#pragma unroll
  for (int j = 0; j < KF_PICK_LOADS; ++j) {  // every load issued before the first is used
    const int i = first + j * KF_PICK_THREADS;
    v[j] = i < vocab ? row[i] : 0.f;
  }
  float best = __uint_as_float(0xff800000u);  // -inf: any finite logit beats it
  int best_index = KF_PICK_NONE, any_bad = 0;
#pragma unroll
  for (int j = 0; j < KF_PICK_LOADS; ++j) {
    const int i = first + j * KF_PICK_THREADS;
    if (i >= vocab) continue;
    any_bad |= kf_pick_not_finite(v[j]);
    if (kf_pick_beats(v[j], i, best, best_index)) {
      best = v[j];
      best_index = i;
    }
  }
  value[t] = best;
  index[t] = best_index;
  bad[t] = any_bad;
  kf_pick_reduce(value, index, bad);
  if (t == 0) {
    const long long at = (long long)blockIdx.y * gridDim.x + blockIdx.x;
    part_value[at] = value[0];
    part_index[at] = bad[0] ? -1 : index[0];
  }
}

// grid (rows): the row's greedy token from its chunks' (-1 when any chunk saw a value that is not finite), its
// values at the `columns` (each < vocab), and the value at the token: columns + 2 words per row.
extern "C" __global__ void __launch_bounds__(KF_PICK_THREADS, 1)
    kf_pick_row(const float* __restrict__ logits, int vocab, const float* __restrict__ part_value,
                const int* __restrict__ part_index, int chunks, const unsigned* __restrict__ columns, int ncol,
                unsigned* __restrict__ out) {
  __shared__ float value[KF_PICK_THREADS];
  __shared__ int index[KF_PICK_THREADS];
  __shared__ int bad[KF_PICK_THREADS];
  const int t = threadIdx.x, r = blockIdx.x;
  float best = __uint_as_float(0xff800000u);
  int best_index = KF_PICK_NONE, any_bad = 0;
  for (int c = t; c < chunks; c += KF_PICK_THREADS) {
    const float pv = part_value[(long long)r * chunks + c];
    const int pi = part_index[(long long)r * chunks + c];
    if (pi < 0) {
      any_bad = 1;
    } else if (kf_pick_beats(pv, pi, best, best_index)) {
      best = pv;
      best_index = pi;
    }
  }
  value[t] = best;
  index[t] = best_index;
  bad[t] = any_bad;
  kf_pick_reduce(value, index, bad);
  const float* row = logits + (long long)r * (long long)vocab;
  unsigned* o = out + (long long)r * (long long)(ncol + 2);
  for (int c = t; c < ncol; c += KF_PICK_THREADS)
    o[1 + c] = columns[c] < (unsigned)vocab ? __float_as_uint(row[columns[c]]) : 0x7fc00000u;
  if (t == 0) {
    const int none = bad[0] || index[0] >= vocab;
    o[0] = none ? 0xffffffffu : (unsigned)index[0];
    o[1 + ncol] = none ? 0x7fc00000u : __float_as_uint(value[0]);
  }
}
)CUDA";

}  // namespace

std::string pick_module_source() { return kPickText; }

std::int64_t pick_chunks(std::int64_t vocab) {
  return std::max<std::int64_t>(1, (vocab + kPickChunk - 1) / kPickChunk);
}

kernels::engine::PickedRows picked_rows_of(std::span<const std::uint32_t> words, std::size_t columns) {
  kernels::engine::PickedRows out;
  const std::size_t width = columns + 2, rows = words.size() / width;
  out.kept.resize(rows * (columns + 1));
  for (std::size_t r = 0; r < rows; ++r) {
    out.greedy.push_back(static_cast<std::int32_t>(words[r * width]));
    std::memcpy(out.kept.data() + r * (columns + 1), words.data() + r * width + 1, (columns + 1) * sizeof(float));
  }
  return out;
}

LaunchConfig pick_part_launch(std::int64_t vocab, std::int64_t rows) {
  LaunchConfig l;
  l.grid = {static_cast<unsigned>(pick_chunks(vocab)), static_cast<unsigned>(rows), 1};
  l.block = {static_cast<unsigned>(kPickThreads), 1, 1};
  return l;
}

LaunchConfig pick_row_launch(std::int64_t rows) {
  LaunchConfig l;
  l.grid = {static_cast<unsigned>(rows), 1, 1};
  l.block = {static_cast<unsigned>(kPickThreads), 1, 1};
  return l;
}

}  // namespace kforge::kernels::cuda::engine
