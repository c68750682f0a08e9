#include "kda/kda_check.hpp"

#include "host_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

namespace kforge::kernels::cuda {
namespace {

constexpr int D = KdaInputs::D;

std::string shape_text(const KdaInputs& in, int b) {
  return "B=" + std::to_string(in.B) + " T=" + std::to_string(in.T) + " H=" + std::to_string(in.H) +
         (in.starts.empty() ? ""
                            : " varlen, this sequence " + std::to_string(in.length(b)) + " tokens from " +
                                  std::to_string(in.start(b)));
}

// check_head(b, h) for every head of the problem (full), or for the one `seed` picks; false stops.
void for_heads(const KdaInputs& in, bool full, std::uint64_t seed, const std::function<bool(int, int)>& check_head) {
  if (full) {
    for (int b = 0; b < in.B; ++b)
      for (int h = 0; h < in.H; ++h)
        if (!check_head(b, h)) return;
  } else {  // one head of the main problem: a T x D^2 recurrence in double is the expensive part
    std::mt19937_64 rng(seed);
    check_head(static_cast<int>(rng() % in.B), static_cast<int>(rng() % in.H));
  }
}

// Where (b, h)'s rows of o and of the final state lie in the kernel's outputs.
std::size_t o_at(const KdaInputs& in, int b, int h, int t, int col) {
  return ((static_cast<std::size_t>(in.start(b)) + t) * in.H + h) * D + col;
}
std::size_t state_at(const KdaInputs& in, int b, int h, int c, int col) {
  return ((static_cast<std::size_t>(b) * in.H + h) * D + c) * D + col;
}

double largest_magnitude(const std::vector<double>& x) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::fabs(v));
  return m;
}

// rms(got - ref) / rms(ref) over `count` elements, as FLA's get_err_ratio; `got_at(n)` and ref[n]. Infinite when
// any element is not finite. A reference of all zeros asks for zeros.
double rms_error_ratio(const std::vector<double>& ref, std::size_t count,
                       const std::function<float(std::size_t)>& got_at) {
  double err2 = 0.0, ref2 = 0.0;
  for (std::size_t n = 0; n < count; ++n) {
    const float got = got_at(n);
    if (!std::isfinite(got)) return INFINITY;
    err2 += (got - ref[n]) * (got - ref[n]);
    ref2 += ref[n] * ref[n];
  }
  if (ref2 == 0.0) return err2 == 0.0 ? 0.0 : INFINITY;
  return std::sqrt(err2 / ref2);
}

}  // namespace

// Each element within 1e-3 of the largest magnitude of its output in its head (where cancellation leaves small
// elements, the error is that of the large ones) plus a relative part: 1e-3, and for o in kda_bf16 bf16's rounding,
// 2^-8. Scaled by the head's own values, not by a fixed number: o is about a tenth of v, so an absolute 1e-3 of v's
// scale let o be 5% wrong.
CheckOutcome check_kda(const std::string& family, const KdaInputs& in, const std::vector<float>& o,
                       const std::vector<float>& state, bool full, std::uint64_t seed, double o_rel_tolerance) {
  ToleranceCheck check(family);
  std::vector<double> ref_o, ref_state;
  for_heads(in, full, seed, [&](int b, int h) {
    kda_reference_head(in, b, h, ref_o, ref_state);
    const double o_abs = 1e-3 * largest_magnitude(ref_o), state_abs = 1e-3 * largest_magnitude(ref_state);
    // The evidence text is made only for a failing element; the closure holds plain numbers, never a copy of `in`
    // (which it would copy, inputs and all, for every element checked).
    const std::string shape = shape_text(in, b);
    auto where = [&shape, b, h](const char* what, int t, int col) {
      return [&shape, what, b, h, t, col] {
        return std::string(what) + " [b=" + std::to_string(b) + ", t=" + std::to_string(t) +
               ", h=" + std::to_string(h) + ", " + std::to_string(col) + "] (" + shape + ")";
      };
    };
    for (int t = 0; t < in.length(b); ++t)
      for (int col = 0; col < D; ++col) {
        const double ref = ref_o[static_cast<std::size_t>(t) * D + col];
        if (!check.element(o[o_at(in, b, h, t, col)], ref, o_abs + o_rel_tolerance * std::fabs(ref),
                           where("o", t, col)))
          return false;
      }
    for (int c = 0; c < D; ++c)
      for (int col = 0; col < D; ++col) {
        const double ref = ref_state[static_cast<std::size_t>(c) * D + col];
        if (!check.element(state[state_at(in, b, h, c, col)], ref, state_abs + 1e-3 * std::fabs(ref),
                           where("final state row", c, col)))
          return false;
      }
    return true;
  });
  return check.outcome();
}

CheckOutcome check_kda_rms(const std::string& family, const KdaInputs& in, const std::vector<float>& o,
                           const std::vector<float>& state, bool full, std::uint64_t seed) {
  CheckOutcome outcome;
  std::vector<double> ref_o, ref_state;
  for_heads(in, full, seed, [&](int b, int h) {
    kda_reference_head(in, b, h, ref_o, ref_state);
    const double o_ratio = rms_error_ratio(ref_o, static_cast<std::size_t>(in.length(b)) * D, [&](std::size_t n) {
      return o[o_at(in, b, h, static_cast<int>(n / D), static_cast<int>(n % D))];
    });
    const double state_ratio = rms_error_ratio(ref_state, std::size_t{D} * D, [&](std::size_t n) {
      return state[state_at(in, b, h, static_cast<int>(n / D), static_cast<int>(n % D))];
    });
    outcome.max_rel_error = std::max({outcome.max_rel_error, o_ratio, state_ratio});
    for (const auto& [what, ratio] : {std::pair{"o", o_ratio}, {"final state", state_ratio}}) {
      if (ratio <= kKdaRmsErrorBound) continue;
      char buf[160];
      std::snprintf(buf, sizeof buf, " of [b=%d, h=%d]: relative RMS error %.4g > %.3g%s", b, h, ratio,
                    kKdaRmsErrorBound,
                    std::isfinite(ratio) ? "" : " (an element is NaN/Inf: not written, or overflowed)");
      outcome.status = jobs::Status::wrong_result;
      outcome.evidence = family + " " + what + buf + " (" + shape_text(in, b) + "; FLA's chunk_kda bound)";
      return false;
    }
    return true;
  });
  return outcome;
}

}  // namespace kforge::kernels::cuda
