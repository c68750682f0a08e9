#include "kda/kda_baselines.hpp"

#include <cstring>
#include <stdexcept>

namespace kforge::kernels::host {

void reference_kda(int B, int H, int T, int D, const float* q, const float* k, const float* v, const float* g,
                   const float* beta, float* o) {
  const kda::Shape shape{B, H, T, D, {}};
  std::vector<float> state, o_head;
  const std::size_t d = static_cast<std::size_t>(D);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      kda::recurrence_head(shape, b, h, q, k, v, g, beta, state, o_head);
      for (int t = 0; t < T; ++t)
        std::memcpy(o + ((static_cast<std::size_t>(b) * T + t) * H + h) * d,
                    o_head.data() + static_cast<std::size_t>(t) * d, d * sizeof(float));
    }
}

const std::vector<std::string>& kda_baseline_names() {
  static const std::vector<std::string> names = {"reference"};
  return names;
}

kda::KdaFn kda_baseline(const std::string& name) {
  if (name == "reference") return &reference_kda;
  throw std::invalid_argument("kda host backend: unknown baseline '" + name +
                              "' in evaluation.baselines (known: reference)");
}

}  // namespace kforge::kernels::host
