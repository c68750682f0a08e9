#pragma once
// The double-precision arithmetic of the model (docs/engines.md, "Equations") that the reference engine's two
// paths share: token by token (ReferenceEngine::step) and all tokens at once (ReferenceEngine::teacher_forced).
// Only how the projections are multiplied differs between them; everything here is per token, once.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kforge/engine/weight_precision.hpp"
#include "kforge/kernels/kda_recurrence.hpp"

namespace kforge::kernels::engine::reference_math {

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }

// out = x / sqrt(mean(x^2) + eps) * gamma, over n values.
inline void rms_norm(const double* x, const double* gamma, double eps, std::int64_t n, double* out) {
  double ss = 0.0;
  for (std::int64_t i = 0; i < n; ++i) ss += x[i] * x[i];
  const double inv = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
  for (std::int64_t i = 0; i < n; ++i) out[i] = x[i] * inv * gamma[i];
}

// Hugging Face's rotate_half RoPE: dimension i pairs with i + d/2, angle pos * inv_freq[i] (rope.hpp).
inline void rope(double* x, std::int64_t d, std::int64_t pos, const double* inv_freq) {
  const std::int64_t half = d / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    const double angle = static_cast<double>(pos) * inv_freq[i];
    const double c = std::cos(angle), s = std::sin(angle), x1 = x[i], x2 = x[i + half];
    x[i] = x1 * c - x2 * s;
    x[i + half] = x2 * c + x1 * s;
  }
}

// KDA's in-layer normalisation of q and k per head (as flash-linear-attention's l2norm, eps 1e-6).
inline void l2_normalise(double* x, std::int64_t d) {
  double ss = 0.0;
  for (std::int64_t i = 0; i < d; ++i) ss += x[i] * x[i];
  const double inv = 1.0 / std::sqrt(ss + 1e-6);
  for (std::int64_t i = 0; i < d; ++i) x[i] *= inv;
}

// One query head attending causally over positions 0..last of a cache whose position p holds its key at
// k + p * stride and its value at v + p * stride (d values each): o = softmax(q.k / sqrt(d)) v. With
// bf16_probabilities, each exp(s - max) multiplies v as bf16 (a tensor-core engine's P), their sum staying exact.
inline void attend(const double* q, const double* k, const double* v, std::int64_t stride, std::int64_t last,
                   std::int64_t d, double* o, bool bf16_probabilities = false) {
  std::vector<double> score(static_cast<std::size_t>(last + 1));
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  double top = -std::numeric_limits<double>::infinity(), sum = 0.0;
  for (std::int64_t p = 0; p <= last; ++p) {
    const double* kp = k + p * stride;
    double dot = 0.0;
    for (std::int64_t i = 0; i < d; ++i) dot += q[i] * kp[i];
    score[static_cast<std::size_t>(p)] = dot * scale;
    top = std::max(top, dot * scale);
  }
  for (auto& s : score) sum += (s = std::exp(s - top));
  std::fill_n(o, d, 0.0);
  for (std::int64_t p = 0; p <= last; ++p) {
    const double e = score[static_cast<std::size_t>(p)];
    const double wgt = (bf16_probabilities ? static_cast<double>(round_to_bf16(static_cast<float>(e))) : e) / sum;
    const double* vp = v + p * stride;
    for (std::int64_t i = 0; i < d; ++i) o[i] += wgt * vp[i];
  }
}

// One token of one KDA head: q and k L2-normalised here, alpha = exp(-softplus(f)) per channel and beta = sigmoid(b),
// then the kda family's recurrence step (kforge/kernels/kda_recurrence.hpp). S is d x d; o gets d values.
inline void kda_token(double* S, double* q, double* k, const double* v, const double* f, double b, std::int64_t d,
                      double* o) {
  l2_normalise(q, d);
  l2_normalise(k, d);
  const auto n = static_cast<std::size_t>(d);
  thread_local std::vector<double> alpha, ks;  // per token and head: no allocation once grown
  alpha.resize(n);
  ks.resize(n);
  for (std::size_t c = 0; c < n; ++c) alpha[c] = std::exp(-softplus(f[c]));
  kda::recurrence_step(S, n, q, k, v, alpha.data(), sigmoid(b), 1.0 / std::sqrt(static_cast<double>(d)), o, ks.data());
}

}  // namespace kforge::kernels::engine::reference_math
