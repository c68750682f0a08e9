// RoPE's inverse frequencies (rope.hpp), with Llama 3's scaling.
#include "kforge/engine/rope.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace kforge::kernels::engine {

std::vector<double> rope_inverse_frequencies(const jobs::ModelSpec& m) {
  if (m.head_dim <= 0 || m.head_dim % 2 != 0 || !(m.rope_theta > 0.0))
    throw std::invalid_argument("rope: the head dimension must be even and > 0, rope_theta > 0");
  const double d = static_cast<double>(m.head_dim);
  std::vector<double> inv(static_cast<std::size_t>(m.head_dim / 2));
  for (std::size_t i = 0; i < inv.size(); ++i) inv[i] = std::pow(m.rope_theta, -2.0 * static_cast<double>(i) / d);
  if (m.rope_scaling_factor == 0.0) return inv;
  const double factor = m.rope_scaling_factor, low = m.rope_low_freq_factor, high = m.rope_high_freq_factor;
  const double context = static_cast<double>(m.rope_original_context);
  if (!(factor > 0.0) || !(low > 0.0) || !(high > low) || !(context > 0.0))
    throw std::invalid_argument(
        "rope: Llama 3 scaling needs factor > 0, high_freq_factor > low_freq_factor > 0 and "
        "original_max_position_embeddings > 0");
  const double low_wavelength = context / low, high_wavelength = context / high;
  for (double& f : inv) {
    const double wavelength = 2.0 * std::numbers::pi / f;
    if (wavelength < high_wavelength) continue;  // high frequencies: unchanged
    if (wavelength > low_wavelength) {           // low frequencies: stretched by the factor
      f /= factor;
      continue;
    }
    const double s = (context / wavelength - low) / (high - low);
    f = (1.0 - s) * f / factor + s * f;
  }
  return inv;
}

}  // namespace kforge::kernels::engine
