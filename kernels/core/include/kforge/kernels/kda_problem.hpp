#pragma once
// The kda family on the host, independent of the candidate: shapes, random inputs, the double-precision
// reference (the per-token recurrence) and the tolerance rule. Kimi Delta Attention forward, fp32.
// Layouts as the cuda family's (kernels/cuda/families/kda/): q, k, v, g, o [B][T][H][D], beta [B][T][H];
// g = log(alpha) <= 0 per channel. Per head, with S a D x D state (key rows, value columns) starting at 0:
//   S_t = (I - beta_t k_t k_t^T) Diag(alpha_t) S_{t-1} + beta_t k_t v_t^T,   o_t = S_t^T q_t / sqrt(D).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kforge/kernels/kda_recurrence.hpp"

#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/status.hpp"

namespace kforge::kernels::kda {

// The signature every host kda candidate exports as extern "C" kforge_kda.
using KdaFn = void (*)(int B, int H, int T, int D, const float* q, const float* k, const float* v, const float* g,
                       const float* beta, float* o);
inline constexpr const char* kEntryPoint = "kforge_kda";

// Input classes besides the ordinary inputs (below), each at an edge of what the family allows:
//   gate_low   every g at the lower bound of its range, log 0.5 (the fastest decay: a chunked form's e^{-G}
//              grows fastest; one that sums the gate over more than ~128 tokens overflows fp32 here),
//   gate_high  every g = 0 (alpha = 1, no decay at all),
//   v_huge     v scaled by 2^50, v_tiny by 2^-50 (the state and the output scale with v).
// q and k stay of unit norm: that is the family's input contract (KDA normalises them in the kernel).
inline const std::vector<std::string> kInputClasses = {"gate_low", "gate_high", "v_huge", "v_tiny"};

struct Shape {
  int B = 0, H = 0, T = 0, D = 0;
  std::string inputs;        // the input class, "" for the ordinary inputs
  std::string text() const;  // "B=1 H=4 T=256 D=128", then "with gate_low inputs" for an input class
  // As a validation case (verification.hpp): B, H, T, D (and inputs=NAME); from_case refuses sizes out of
  // bounds and unknown input classes.
  std::vector<std::pair<std::string, std::int64_t>> case_keys() const;
  static std::optional<Shape> from_case(const std::map<std::string, std::int64_t>& keys,
                                        const std::string& inputs = {});
  std::size_t rows() const { return static_cast<std::size_t>(B) * T * H; }
  // Per token and head: decay D^2, S^T k 2D^2, rank-1 update 2D^2, S^T q 2D^2 (the cuda family's count).
  double flop() const { return 7.0 * D * D * static_cast<double>(rows()); }
};

// settings.problem B, H, T, D (1, 4, 256, 128 when absent). Throws std::invalid_argument naming the key.
Shape main_shape(const jobs::EvalSettings& settings);

// The main shape, then edge shapes with the main D: one token, T = 37 and T = 77 (no CHUNK divides them), B = 2;
// then every input class, at T = 200 for the gate (longer than any chunk, and a multiple of none) and T = 77.
std::vector<Shape> verification_shapes(const Shape& main);

// q, k of unit L2 norm per token (as KDA's in-kernel normalisation makes them), v in [-1, 1],
// alpha in [0.5, 1) (g = log alpha), beta in (0, 1), then the shape's input class applied. o is poisoned with a
// NaN, plus guard floats after its end.
struct Inputs {
  Shape shape;
  std::vector<float> q, k, v, g, beta, o;
  void poison_o();
  void call(KdaFn kernel) {
    kernel(shape.B, shape.H, shape.T, shape.D, q.data(), k.data(), v.data(), g.data(), beta.data(), o.data());
  }
};
Inputs random_inputs(const Shape& shape, std::mt19937_64& rng);

// The recurrence for one (b, h) in Real: o_head[t * D + col]. Real = double is the reference; the "reference"
// baseline runs the same loops in float.
// state and o_head are work buffers, resized here.
template <typename Real>
void recurrence_head(const Shape& s, int b, int h, const float* q, const float* k, const float* v, const float* g,
                     const float* beta, std::vector<Real>& state, std::vector<Real>& o_head) {
  const std::size_t D = static_cast<std::size_t>(s.D);
  const Real scale = Real(1) / std::sqrt(static_cast<Real>(s.D));
  state.assign(D * D, Real(0));
  o_head.assign(static_cast<std::size_t>(s.T) * D, Real(0));
  std::vector<Real> ks(D), alpha(D);
  for (int t = 0; t < s.T; ++t) {
    const std::size_t row = (static_cast<std::size_t>(b) * s.T + t) * s.H + h, at = row * D;
    for (std::size_t c = 0; c < D; ++c) alpha[c] = std::exp(static_cast<Real>(g[at + c]));
    recurrence_step(state.data(), D, q + at, k + at, v + at, alpha.data(), static_cast<Real>(beta[row]), scale,
                    o_head.data() + static_cast<std::size_t>(t) * D, ks.data());
  }
}

struct CheckOutcome {
  jobs::Status status = jobs::Status::ok;  // ok, wrong_result or cheat_detected
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;  // max |o - ref| / max |ref| over the whole output
  std::string evidence;        // empty when ok
};

// Tolerance: |o - ref| <= kRelTolerance * |ref| + kNormTolerance * max|ref| (the second term keeps elements
// near zero from failing on rounding alone). fp32 chunked forms land around 1e-6 relative at T = 256.
inline constexpr double kRelTolerance = 1e-3;
inline constexpr double kNormTolerance = 1e-4;

// Calls the kernel on fresh inputs of this shape and checks: inputs untouched (else cheat_detected), nothing
// written past o, no NaN/Inf (the poison shows unwritten elements), every element within the tolerance.
// How the check calls the candidate: in this process, or in the candidate's own (host/candidate_process.hpp).
using Runner = std::function<void(Inputs&)>;
CheckOutcome check_kernel(const Runner& run, const Shape& shape, std::mt19937_64& rng);
CheckOutcome check_kernel(KdaFn kernel, const Shape& shape, std::mt19937_64& rng);

// After a timed call: recomputes one random head in double and compares it; "" when it is right.
std::string spot_check(const Inputs& in, std::mt19937_64& rng);

}  // namespace kforge::kernels::kda
