// The asynchronous copies and warp-wide tensor-core operations of the kernel templates, emulated on the CPU (a FAKE
// GPU, README.md), with the semantics the PTX ISA gives them, so that a template whose fragments, groups or
// layouts are wrong computes a wrong result here as it would on a GPU. Included by cuda_emulation_runtime.hpp.
//
// - cp.async (cp_async16, cp_async4): both addresses aligned to the copy's size (else the launch fails, as a GPU's
//   does with a misaligned address); the source is read when issued, and the bytes land only when the issuing
//   thread's cp.async.wait_group<N> leaves at most N of its committed groups in flight (cp.async.commit_group
//   closes a group). A copy never waited for never lands: reading a stage before waiting for it reads what was
//   there (0xFF poison in a fresh block's dynamic shared memory, or an older chunk).
// - ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: lanes 8i..8i+7 give the row addresses of matrix i, each
//   on 16 bytes (else the launch fails); lane l receives, in register i, row l/4's elements 2(l%4) and 2(l%4)+1 of
//   matrix i (with .trans, column l/4's), the lower-indexed element in the low half.
// - mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32: with g = lane/4 and t = lane%4, A's a0..a3 hold (g, 2t),
//   (g+8, 2t), (g, 2t+8), (g+8, 2t+8) and the next column; B's b0, b1 hold rows 2t, 2t+1 and 2t+8, 2t+9 of column
//   g; C's c0..c3 are (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1). Products of bf16 are exact in fp32; the sum runs in
//   fp32 in k order from c (no wider than the hardware's accumulator).
// - cvt.rn.bf16x2.f32: two floats rounded to bf16 and packed, the first argument in the upper half (as PTX's d, a, b).
#pragma once

namespace kf_emu {

inline bool aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

inline void cp_async_issue(void* dst, const void* src, bool in_bounds, std::size_t bytes) {
  if (!aligned(dst, bytes) || !aligned(src, bytes))
    fault("misaligned address: cp.async of " + std::to_string(bytes) + " bytes needs both addresses aligned to them");
  PendingCopy copy;
  copy.dst = dst;
  copy.size = bytes;
  if (in_bounds) std::memcpy(copy.bytes, src, bytes);  // src_bytes 0: the copy fills zeros
  run().copies[static_cast<std::size_t>(run().current)].open.push_back(copy);
}

inline void cp_async_commit_group() {
  AsyncCopies& mine = run().copies[static_cast<std::size_t>(run().current)];
  mine.committed.push_back(std::move(mine.open));
  mine.open.clear();
}

inline void cp_async_wait_group(int newest_in_flight) {
  AsyncCopies& mine = run().copies[static_cast<std::size_t>(run().current)];
  while (static_cast<int>(mine.committed.size()) > newest_in_flight) {
    for (const PendingCopy& copy : mine.committed.front()) std::memcpy(copy.dst, copy.bytes, copy.size);
    mine.committed.erase(mine.committed.begin());
  }
}

inline unsigned pack_halves(std::uint16_t low, std::uint16_t high) { return low | (static_cast<unsigned>(high) << 16); }

// ldmatrix: `matrices` 8x8 b16 matrices from the row addresses the lanes give.
inline void ldmatrix(unsigned* r, const std::uint16_t* row_address, int matrices, bool transpose) {
  const int me = run().current & 31, g = me / 4, t = me % 4;
  if (me < 8 * matrices && !aligned(row_address, 16)) fault("misaligned address: an ldmatrix row not on 16 bytes");
  warp_exchange(row_address, [&](auto lane) {
    for (int i = 0; i < matrices; ++i) {
      if (transpose)
        r[i] = pack_halves(lane(8 * i + 2 * t)[g], lane(8 * i + 2 * t + 1)[g]);
      else {
        const std::uint16_t* row = lane(8 * i + g);
        r[i] = pack_halves(row[2 * t], row[2 * t + 1]);
      }
    }
  });
}

inline float bf16_half(unsigned reg, int high) {
  return kforge::kernels::cuda::bf16_to_float(static_cast<std::uint16_t>(high ? reg >> 16 : reg & 0xffffu));
}

struct MmaOperands {
  unsigned a[4];
  unsigned b[2];
};

inline void mma_m16n8k16_bf16(float c[4], const unsigned a[4], const unsigned b[2]) {
  const MmaOperands mine{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}};
  const int me = run().current & 31, g = me / 4, t = me % 4;
  warp_exchange(mine, [&](auto lane) {
    float A[16][16], B[16][8];
    for (int l = 0; l < 32; ++l) {
      const MmaOperands x = lane(l);
      const int lg = l / 4, lt = l % 4;
      for (int h = 0; h < 2; ++h) {
        A[lg][2 * lt + h] = bf16_half(x.a[0], h);
        A[lg + 8][2 * lt + h] = bf16_half(x.a[1], h);
        A[lg][2 * lt + 8 + h] = bf16_half(x.a[2], h);
        A[lg + 8][2 * lt + 8 + h] = bf16_half(x.a[3], h);
        B[2 * lt + h][lg] = bf16_half(x.b[0], h);
        B[2 * lt + 8 + h][lg] = bf16_half(x.b[1], h);
      }
    }
    for (int e = 0; e < 4; ++e) {
      const int row = g + (e / 2) * 8, col = 2 * t + e % 2;
      float sum = c[e];
      for (int k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
      c[e] = sum;
    }
  });
}

}  // namespace kf_emu

inline void cp_async16(void* dst, const void* src, bool in_bounds) { kf_emu::cp_async_issue(dst, src, in_bounds, 16); }
inline void cp_async4(void* dst, const void* src, bool in_bounds) { kf_emu::cp_async_issue(dst, src, in_bounds, 4); }
inline void cp_async_commit() { kf_emu::cp_async_commit_group(); }
template <int N>
void cp_async_wait() {
  kf_emu::cp_async_wait_group(N);
}
inline void ldmatrix_x4(unsigned r[4], const unsigned short* p) { kf_emu::ldmatrix(r, p, 4, false); }
inline void ldmatrix_x4_trans(unsigned r[4], const unsigned short* p) { kf_emu::ldmatrix(r, p, 4, true); }
inline void ldmatrix_x2(unsigned r[2], const unsigned short* p) { kf_emu::ldmatrix(r, p, 2, false); }
inline void ldmatrix_x2_trans(unsigned r[2], const unsigned short* p) { kf_emu::ldmatrix(r, p, 2, true); }
inline void mma_bf16(float c[4], const unsigned a[4], const unsigned b[2]) { kf_emu::mma_m16n8k16_bf16(c, a, b); }
inline unsigned pack_bf16x2(float high, float low) {
  return kf_emu::pack_halves(kforge::kernels::cuda::float_to_bf16(low), kforge::kernels::cuda::float_to_bf16(high));
}

struct float2 {
  float x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
inline float2 make_float2(float x, float y) { return {x, y}; }
