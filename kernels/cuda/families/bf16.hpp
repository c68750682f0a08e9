#pragma once
// bf16 <-> fp32 on the host, round to nearest even as cvt.rn.bf16.f32 does. No dependency beyond the C++ library:
// the families' host code (host_data.hpp) and the CPU emulation of their kernels
// (tests/kernels_cuda/emulator/cuda_emulation_runtime.hpp) share this one definition.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace kforge::kernels::cuda {

inline float bf16_to_float(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return 0x7fc0;
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<std::uint16_t>(bits >> 16);
}

}  // namespace kforge::kernels::cuda
