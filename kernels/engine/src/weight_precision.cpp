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
  }
  return "?";
}

WeightPrecision parse_weight_precision(std::string_view name) {
  for (WeightPrecision p : {WeightPrecision::fp32, WeightPrecision::bf16, WeightPrecision::int8})
    if (name == precision_name(p)) return p;
  throw std::invalid_argument("weights \"" + std::string(name) + "\" must be fp32, bf16 or int8");
}

double bytes_per_weight(WeightPrecision p) {
  switch (p) {
    case WeightPrecision::fp32:
      return 4.0;
    case WeightPrecision::bf16:
      return 2.0;
    case WeightPrecision::int8:
      return 1.0;
  }
  return 4.0;
}

float round_to_bf16(float x) {
  if (std::isnan(x)) return x;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  return std::bit_cast<float>((bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u);
}

float int8_row_scale(std::span<const float> row) {
  float largest = 0.0f;
  for (float x : row) largest = std::max(largest, std::abs(x));
  return largest / 127.0f;
}

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
    } else {
      for (std::size_t r = 0; r < rows; ++r) round_row_to_int8({data + r * cols, cols});
    }
  }
  w.precision = p;
}

}  // namespace kforge::kernels::engine
