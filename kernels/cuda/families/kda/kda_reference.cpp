// The KDA reference: the per-token recurrence, exactly as field-facts.md states it, in double precision.
#include <cmath>
#include <cstdint>

#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {

std::vector<int> kda_sequence_starts(int B, int T, bool varlen) {
  std::vector<int> starts(static_cast<std::size_t>(B) + 1, 0);
  const std::int64_t total = static_cast<std::int64_t>(B) * T, weights = static_cast<std::int64_t>(B) * (B - 1) / 2;
  for (int b = 0; b < B; ++b)
    starts[b + 1] = starts[b] + (!varlen || B == 1 ? T : static_cast<int>(1 + (total - B) * b / weights));
  starts[B] = static_cast<int>(total);  // the last sequence takes what rounding left
  return starts;
}

void kda_reference_head(const KdaInputs& in, int b, int h, std::vector<double>& o, std::vector<double>& state) {
  constexpr int D = KdaInputs::D;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  state.assign(static_cast<std::size_t>(D) * D, 0.0);  // [key c][value col]
  const int T = in.length(b);
  o.assign(static_cast<std::size_t>(T) * D, 0.0);
  std::vector<double> k_s(D);
  for (int t = 0; t < T; ++t) {
    const std::size_t row = (static_cast<std::size_t>(in.start(b)) + t) * in.H + h;
    const float* q = in.q.data() + row * D;
    const float* k = in.k.data() + row * D;
    const float* v = in.v.data() + row * D;
    const float* g = in.g.data() + row * D;
    const double beta = in.beta[row];
    for (int c = 0; c < D; ++c) {  // S <- Diag(alpha_t) S
      const double alpha = std::exp(static_cast<double>(g[c]));
      for (int col = 0; col < D; ++col) state[c * D + col] *= alpha;
    }
    std::fill(k_s.begin(), k_s.end(), 0.0);  // S^T k
    for (int c = 0; c < D; ++c)
      for (int col = 0; col < D; ++col) k_s[col] += k[c] * state[c * D + col];
    for (int c = 0; c < D; ++c)  // S += k (beta (v - S^T k))^T
      for (int col = 0; col < D; ++col) state[c * D + col] += k[c] * beta * (v[col] - k_s[col]);
    for (int c = 0; c < D; ++c)  // o = S^T (scale q)
      for (int col = 0; col < D; ++col) o[static_cast<std::size_t>(t) * D + col] += scale * q[c] * state[c * D + col];
  }
}

}  // namespace kforge::kernels::cuda
