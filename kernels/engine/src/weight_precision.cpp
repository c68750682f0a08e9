#include "kforge/engine/weight_precision.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "kforge/engine/model_weights.hpp"

namespace kforge::kernels::engine {

std::string_view precision_name(WeightPrecision p) {
  switch (p) {
    case WeightPrecision::fp32:
      return "fp32";
    case WeightPrecision::bf16:
      return "bf16";
    case WeightPrecision::int8:
      return "int8";
    case WeightPrecision::fp8:
      return "fp8";
  }
  return "?";
}

WeightPrecision parse_weight_precision(std::string_view name) {
  for (WeightPrecision p : {WeightPrecision::fp32, WeightPrecision::bf16, WeightPrecision::int8, WeightPrecision::fp8})
    if (name == precision_name(p)) return p;
  throw std::invalid_argument("weights \"" + std::string(name) + "\" must be fp32, bf16, int8 or fp8");
}

double bytes_per_weight(WeightPrecision p) {
  switch (p) {
    case WeightPrecision::fp32:
      return 4.0;
    case WeightPrecision::bf16:
      return 2.0;
    case WeightPrecision::int8:
    case WeightPrecision::fp8:
      return 1.0;
  }
  return 4.0;
}

float round_to_bf16(float x) {
  if (std::isnan(x)) return x;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  return std::bit_cast<float>((bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u);
}

namespace {

float largest_magnitude(std::span<const float> row) {
  float largest = 0.0f;
  for (float x : row) largest = std::max(largest, std::abs(x));
  return largest;
}

}  // namespace

float int8_row_scale(std::span<const float> row) { return largest_magnitude(row) / 127.0f; }

void round_row_to_int8(std::span<float> row) {
  const float scale = int8_row_scale(row);
  for (float& x : row) {
    if (scale == 0.0f) {
      x = 0.0f;
      continue;
    }
    const float q = std::clamp(std::nearbyint(x / scale), -127.0f, 127.0f);  // the default mode: ties to even
    x = q * scale;
  }
}

float round_to_e4m3(float y) {
  constexpr float kLargest = 448.0f;
  const float a = std::abs(y);
  if (std::isnan(y) || a == 0.0f) return y;
  int e = 0;
  std::frexp(a, &e);                                 // a = m 2^e, m in [0.5, 1): the binade's leading bit is 2^(e-1)
  const int lead = std::max(e - 1, -6);              // below 2^-6 the spacing stays 2^-9 (subnormals)
  const float quantum = std::ldexp(1.0f, lead - 3);  // 3 mantissa bits
  const float r = std::min(std::nearbyint(a / quantum) * quantum, kLargest);  // ties to even; 448 is the top
  return std::copysign(r, y);
}

std::uint8_t e4m3_bits(float x) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const float a = std::abs(x);
  if (a == 0.0f) return sign;
  int e = 0;
  std::frexp(a, &e);
  if (e - 1 < -6) return static_cast<std::uint8_t>(sign | static_cast<int>(a / std::ldexp(1.0f, -9)));  // subnormal
  const int mantissa = static_cast<int>(std::ldexp(a, -(e - 1)) * 8.0f) - 8;
  return static_cast<std::uint8_t>(sign | ((e - 1 + 7) << 3) | mantissa);
}

float e4m3_value(std::uint8_t bits) {
  const int exponent = (bits >> 3) & 15, mantissa = bits & 7;
  const float a = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -9)
                                : std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
  return (bits & 0x80) ? -a : a;
}

float fp8_row_scale(std::span<const float> row) { return largest_magnitude(row) / 448.0f; }

void round_row_to_fp8(std::span<float> row) {
  const float scale = fp8_row_scale(row);
  for (float& x : row) x = scale == 0.0f ? 0.0f : round_to_e4m3(x / scale) * scale;
}

void round_weights(Weights& w, WeightPrecision p) {
  if (w.precision == p) return;
  if (w.precision != WeightPrecision::fp32)
    throw std::logic_error("round_weights: weights already rounded to " + std::string(precision_name(w.precision)));
  for (std::size_t t = 0; t < w.tensors.size(); ++t) {
    const TensorInfo& info = w.tensors[t];
    if (info.shape.size() != 2) continue;
    float* data = w.data.data() + w.offsets[t];
    const auto rows = static_cast<std::size_t>(info.shape[0]), cols = static_cast<std::size_t>(info.shape[1]);
    if (p == WeightPrecision::bf16) {
      std::transform(data, data + rows * cols, data, round_to_bf16);
    } else if (p == WeightPrecision::fp8) {
      for (std::size_t r = 0; r < rows; ++r) round_row_to_fp8({data + r * cols, cols});
    } else {
      for (std::size_t r = 0; r < rows; ++r) round_row_to_int8({data + r * cols, cols});
    }
  }
  w.precision = p;
}

}  // namespace kforge::kernels::engine
