// The cuda kda family's reference: the per-token recurrence (kforge/kernels/kda_recurrence.hpp) in double, over
// the variable-length sequences of a batch (cu_seqlens).
#include <cmath>
#include <cstdint>

#include "kda/kda_family.hpp"
#include "kforge/kernels/kda_recurrence.hpp"

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
  std::vector<double> ks(D), alpha(D);
  for (int t = 0; t < T; ++t) {
    const std::size_t row = (static_cast<std::size_t>(in.start(b)) + t) * in.H + h;
    for (int c = 0; c < D; ++c) alpha[c] = std::exp(static_cast<double>(in.g[row * D + c]));
    kda::recurrence_step(state.data(), D, in.q.data() + row * D, in.k.data() + row * D, in.v.data() + row * D,
                         alpha.data(), static_cast<double>(in.beta[row]), scale,
                         o.data() + static_cast<std::size_t>(t) * D, ks.data());
  }
}

}  // namespace kforge::kernels::cuda
