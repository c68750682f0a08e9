#include "kforge/serve/sampling.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/workload_trace.hpp"

namespace kforge::serve {
namespace {

// e^x for x <= 0 in float, within 2e-7 relative (a degree-6 polynomial for 2^f): written without branches so the
// compiler vectorises the loop over a vocabulary (std::exp does not vectorise, and one call per token of a
// 150k-entry vocabulary would cost more than an engine step).
[[gnu::always_inline]] inline float exp_nonpositive(float x) {
  const float t = (x < -87.0f ? -87.0f : x) * 1.44269504089f;                // x log2(e)
  const float truncated = static_cast<float>(static_cast<std::int32_t>(t));  // floor without a libm call
  const float i = truncated - static_cast<float>(truncated > t);
  const float f = t - i;
  float p = 1.53533466e-4f;
  p = p * f + 1.33989914e-3f;
  p = p * f + 9.61840641e-3f;
  p = p * f + 5.55036576e-2f;
  p = p * f + 2.40226516e-1f;
  p = p * f + 6.93147182e-1f;
  p = p * f + 1.0f;
  return std::bit_cast<float>(std::bit_cast<std::int32_t>(p) + (static_cast<std::int32_t>(i) << 23));
}

// Loops over the vocabulary in kLanes independent lanes, so that the compiler vectorises the reductions too (a
// float sum or maximum in one accumulator may not be reordered) and every build adds in the same order.
constexpr std::size_t kLanes = 16;

float max_of(std::span<const float> x) {
  std::array<float, kLanes> m;
  m.fill(-INFINITY);
  std::size_t i = 0;
  for (; i + kLanes <= x.size(); i += kLanes)
    for (std::size_t j = 0; j < kLanes; ++j) m[j] = x[i + j] > m[j] ? x[i + j] : m[j];
  for (; i < x.size(); ++i) m[0] = x[i] > m[0] ? x[i] : m[0];
  return *std::max_element(m.begin(), m.end());
}

// The sum of w[begin, end) in double (lanes of float within it).
double sum_of(const std::vector<float>& w, std::size_t begin, std::size_t end) {
  std::array<float, kLanes> acc{};
  std::size_t i = begin;
  for (; i + kLanes <= end; i += kLanes)
    for (std::size_t j = 0; j < kLanes; ++j) acc[j] += w[i + j];
  double total = 0.0;
  for (; i < end; ++i) total += w[i];
  for (const float a : acc) total += a;
  return total;
}

// out[i] = e^((in[i] - top) inv), 16 lanes at a time where the CPU has AVX-512 (the same operations in the same
// order as exp_nonpositive, no fused multiply-adds, so both paths give the same weights).
// (GCC 12's AVX-512 intrinsics pass _mm512_undefined_ps() as their masked-off source: a false maybe-uninitialized.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) void exp_shifted_avx512(const float* in, float* out, std::size_t n, float top,
                                                           float inv) {
  const __m512 vtop = _mm512_set1_ps(top), vinv = _mm512_set1_ps(inv), lowest = _mm512_set1_ps(-87.0f);
  const __m512 log2e = _mm512_set1_ps(1.44269504089f);
  constexpr std::array<float, 6> kCoefficients = {1.33989914e-3f, 9.61840641e-3f, 5.55036576e-2f,
                                                  2.40226516e-1f, 6.93147182e-1f, 1.0f};
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(in + i), vtop), vinv);
    const __m512 t = _mm512_mul_ps(_mm512_max_ps(x, lowest), log2e);
    const __m512 r = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_sub_ps(t, r);
    __m512 p = _mm512_set1_ps(1.53533466e-4f);
    for (const float c : kCoefficients) p = _mm512_add_ps(_mm512_mul_ps(p, f), _mm512_set1_ps(c));
    const __m512i bits = _mm512_add_epi32(_mm512_castps_si512(p), _mm512_slli_epi32(_mm512_cvttps_epi32(r), 23));
    _mm512_storeu_ps(out + i, _mm512_castsi512_ps(bits));
  }
  for (; i < n; ++i) out[i] = exp_nonpositive((in[i] - top) * inv);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

void exp_shifted(const float* in, float* out, std::size_t n, float top, float inv) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return exp_shifted_avx512(in, out, n, top, inv);
  for (std::size_t i = 0; i < n; ++i) out[i] = exp_nonpositive((in[i] - top) * inv);
}

// Tokens per block of the weights' sums: a draw over the whole vocabulary skips whole blocks by their sums.
constexpr std::size_t kBlock = 1024;

// Weights e^((logit - max) / temperature) of every token; returns the sum of each block of kBlock tokens.
std::vector<double> weights_of(std::span<const float> logits, double temperature, std::vector<float>& w) {
  w.resize(logits.size());
  exp_shifted(logits.data(), w.data(), logits.size(), max_of(logits), static_cast<float>(1.0 / temperature));
  std::vector<double> blocks;
  for (std::size_t b = 0; b < w.size(); b += kBlock) blocks.push_back(sum_of(w, b, std::min(w.size(), b + kBlock)));
  return blocks;
}

// The token at `target` of the running sum over the whole vocabulary: whole blocks skipped by their sums, then one
// block's tokens (its last weighted token when rounding between its sum and this scan leaves the scan short).
std::int32_t draw_all(const std::vector<float>& w, const std::vector<double>& blocks, double target) {
  double run = 0.0;
  std::size_t k = 0;
  while (k + 1 < blocks.size() && target >= run + blocks[k]) run += blocks[k++];
  std::size_t last = k * kBlock;
  for (std::size_t i = k * kBlock; i < std::min(w.size(), (k + 1) * kBlock); ++i) {
    if (w[i] == 0.0f) continue;
    last = i;
    run += w[i];
    if (target < run) break;
  }
  return static_cast<std::int32_t>(last);
}

// Heavier first, the lower id on ties: the order top_k and top_p keep tokens in.
auto heavier_in(const std::vector<float>& w) {
  return [&w](std::int32_t a, std::int32_t b) {
    const float wa = w[static_cast<std::size_t>(a)], wb = w[static_cast<std::size_t>(b)];
    return wa != wb ? wa > wb : a < b;
  };
}

double weight_of(const std::vector<float>& w, const std::vector<std::int32_t>& ids) {
  double total = 0.0;
  for (const std::int32_t id : ids) total += w[static_cast<std::size_t>(id)];
  return total;
}

// The token at `target` of the running sum over `ids` in their order (the last one if rounding leaves it short).
std::int32_t draw(const std::vector<float>& w, const std::vector<std::int32_t>& ids, double target) {
  double run = 0.0;
  for (const std::int32_t id : ids) {
    run += w[static_cast<std::size_t>(id)];
    if (target < run) return id;
  }
  return ids.back();
}

// The nucleus: the fewest heaviest of `ids` whose weights sum to at least `mass` (ties by lower id), found by
// partitioning around pivots rather than sorting everything (flat distributions keep most of the vocabulary).
std::vector<std::int32_t> nucleus(const std::vector<float>& w, std::vector<std::int32_t> ids, double mass) {
  const auto heavier = heavier_in(w);
  std::vector<std::int32_t> kept;
  auto lo = ids.begin(), hi = ids.end();
  while (hi - lo > 64) {
    const auto mid = lo + (hi - lo) / 2;
    std::nth_element(lo, mid, hi, heavier);  // [lo, mid) are heavier than the rest
    double front = 0.0;
    for (auto it = lo; it != mid; ++it) front += w[static_cast<std::size_t>(*it)];
    if (front >= mass) {
      hi = mid;
    } else {
      kept.insert(kept.end(), lo, mid);
      mass -= front;
      lo = mid;
    }
  }
  std::sort(lo, hi, heavier);
  for (auto it = lo; it != hi && mass > 0.0; ++it) {
    kept.push_back(*it);
    mass -= w[static_cast<std::size_t>(*it)];
  }
  std::sort(kept.begin(), kept.end(), heavier);
  return kept;
}

}  // namespace

TokenSampler::TokenSampler(const SamplingParams& params, std::uint64_t seed) : params_(params), rng_(seed) {}

std::int32_t TokenSampler::pick(std::span<const float> logits) {
  if (params_.greedy()) return static_cast<std::int32_t>(kernels::engine::argmax(logits));
  std::vector<float> w;
  const std::vector<double> blocks = weights_of(logits, params_.temperature, w);
  const double u = kernels::engine::unit_interval(rng_());
  double total = 0.0;
  for (const double b : blocks) total += b;
  if (params_.top_k <= 0 && params_.top_p >= 1.0) return draw_all(w, blocks, u * total);
  std::vector<std::int32_t> ids(w.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>(i);
  if (params_.top_k > 0 && static_cast<std::size_t>(params_.top_k) < ids.size()) {
    const auto k = static_cast<std::ptrdiff_t>(params_.top_k);
    std::nth_element(ids.begin(), ids.begin() + k - 1, ids.end(), heavier_in(w));
    ids.resize(static_cast<std::size_t>(k));
    total = weight_of(w, ids);
  }
  if (params_.top_p < 1.0) {
    ids = nucleus(w, std::move(ids), params_.top_p * total);
    total = weight_of(w, ids);
  }
  return draw(w, ids, u * total);
}

SamplingError sampling_error(const SamplingParams& p) {
  if (!(p.temperature >= 0.0 && p.temperature <= 2.0)) return {"temperature", "must be in [0, 2]"};
  if (!(p.top_p > 0.0 && p.top_p <= 1.0)) return {"top_p", "must be in (0, 1]"};
  if (p.top_k < -1) return {"top_k", "must be -1, 0 or a positive count"};
  return {};
}

}  // namespace kforge::serve
