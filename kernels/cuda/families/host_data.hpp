#pragma once
// Host-side helpers the families share: bf16 conversion (round to nearest even, as cvt.rn.bf16.f32 does),
// typed views of byte buffers, and the element-wise tolerance check that produces a CheckOutcome.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "family.hpp"

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

template <typename T>
Bytes to_bytes(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> from_bytes(const Bytes& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// Accumulates the worst errors over checked elements and keeps the first failure as evidence.
class ToleranceCheck {
 public:
  explicit ToleranceCheck(std::string what) : what_(std::move(what)) {}
  // `index_text` is only built for a failure. Returns false on the first element out of tolerance.
  bool element(double got, double expected, double tolerance, const std::function<std::string()>& index_text);
  CheckOutcome outcome() const { return outcome_; }

 private:
  std::string what_;
  CheckOutcome outcome_;
  double max_abs_ref_ = 0.0;
};

}  // namespace kforge::kernels::cuda
