#include "kforge/kernels/gemm_problem.hpp"

#include "kforge/kernels/input_classes.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace kforge::kernels::gemm {
namespace {

// A quiet NaN with a recognisable payload: a candidate writing any real result changes it.
constexpr std::uint32_t kPoisonBits = 0x7fc0bad0u;
constexpr int kGuardFloats = 64;  // poisoned floats after C's last row, to catch writes past the end

float poison() { return std::bit_cast<float>(kPoisonBits); }
bool is_poison(float x) { return std::bit_cast<std::uint32_t>(x) == kPoisonBits; }

Shape tight(int m, int n, int k) { return Shape{m, n, k, k, n, n, {}}; }
Shape padded(int m, int n, int k) { return Shape{m, n, k, k + 3, n + 5, n + 2, {}}; }
Shape with_inputs(Shape s, std::string inputs) {
  s.inputs = std::move(inputs);
  return s;
}

float input_scale(const std::string& inputs) {
  if (inputs.empty()) return 1.0f;
  if (inputs == "huge") return std::ldexp(1.0f, input_classes::kGemmScaleExponent);
  if (inputs == "tiny") return std::ldexp(1.0f, -input_classes::kGemmScaleExponent);
  throw std::invalid_argument("gemm: unknown input class '" + inputs + "'");
}

struct Reference {
  double value = 0.0;
  double magnitude = 0.0;  // sum_k |a_ik * b_kj|
};

Reference reference_at(const Operands& ops, int i, int j) {
  const Shape& s = ops.shape;
  Reference r;
  for (int k = 0; k < s.K; ++k) {
    const double p = static_cast<double>(ops.a[static_cast<std::size_t>(i) * s.lda + k]) *
                     static_cast<double>(ops.b[static_cast<std::size_t>(k) * s.ldb + j]);
    r.value += p;
    r.magnitude += std::fabs(p);
  }
  return r;
}

// Row i of the reference, i-k-j order so that B is read row by row.
void reference_row(const Operands& ops, int i, std::vector<double>& value, std::vector<double>& magnitude) {
  const Shape& s = ops.shape;
  std::fill(value.begin(), value.end(), 0.0);
  std::fill(magnitude.begin(), magnitude.end(), 0.0);
  for (int k = 0; k < s.K; ++k) {
    const double a = ops.a[static_cast<std::size_t>(i) * s.lda + k];
    const float* b_row = ops.b.data() + static_cast<std::size_t>(k) * s.ldb;
    for (int j = 0; j < s.N; ++j) {
      const double p = a * static_cast<double>(b_row[j]);
      value[j] += p;
      magnitude[j] += std::fabs(p);
    }
  }
}

double bound_for(const Shape& s, double magnitude) { return 2.0 * s.K * FLT_EPSILON * magnitude + 1e-30; }

std::string first_difference(const std::vector<float>& before, const std::vector<float>& after, const char* name,
                             int ld, const Shape& s) {
  for (std::size_t x = 0; x < before.size(); ++x)
    if (std::bit_cast<std::uint32_t>(before[x]) != std::bit_cast<std::uint32_t>(after[x]))
      return std::string("input ") + name + " modified at index " + std::to_string(x) + " (row " +
             std::to_string(x / static_cast<std::size_t>(ld)) + ", column " + std::to_string(x % ld) + ") for " +
             s.text();
  return {};
}

// Padding between rows and the guard after the last row must still hold the poison.
std::string outside_write(const Operands& ops) {
  const Shape& s = ops.shape;
  for (std::size_t x = 0; x < ops.c.size(); ++x) {
    const std::size_t row = x / static_cast<std::size_t>(s.ldc), col = x % static_cast<std::size_t>(s.ldc);
    const bool inside = row < static_cast<std::size_t>(s.M) && col < static_cast<std::size_t>(s.N);
    if (!inside && !is_poison(ops.c[x]))
      return "wrote outside C at index " + std::to_string(x) + " (ldc " + std::to_string(s.ldc) + ") for " + s.text();
  }
  return {};
}

std::string format_element(const char* what, int i, int j, const Shape& s) {
  return std::string(what) + " at (" + std::to_string(i) + "," + std::to_string(j) + ") for " + s.text();
}

// NaN/Inf first (the poison shows up here when an element was never written), then the tolerance.
CheckOutcome compare_with_reference(const Operands& ops) {
  const Shape& s = ops.shape;
  CheckOutcome out;
  double max_ref = 0.0, worst_ratio = -1.0;
  std::ostringstream worst;
  std::vector<double> ref(static_cast<std::size_t>(s.N)), magnitude(static_cast<std::size_t>(s.N));
  for (int i = 0; i < s.M; ++i) {
    reference_row(ops, i, ref, magnitude);
    for (int j = 0; j < s.N; ++j) {
      const float c = ops.c[static_cast<std::size_t>(i) * s.ldc + j];
      if (!std::isfinite(c))
        return {jobs::Status::wrong_result, jobs::kNaN, jobs::kNaN,
                format_element(std::isnan(c) ? "NaN" : "Inf", i, j, s)};
      const double err = std::fabs(static_cast<double>(c) - ref[j]), bound = bound_for(s, magnitude[j]);
      out.max_abs_error = std::max(out.max_abs_error, err);
      max_ref = std::max(max_ref, std::fabs(ref[j]));
      if (err > bound && err / bound > worst_ratio) {
        worst_ratio = err / bound;
        worst.str("");
        worst.precision(9);
        worst << "wrong result for " << s.text() << ": worst element (" << i << "," << j << ") = " << c << ", expected "
              << ref[j] << ", error " << err << " > bound " << bound;
      }
    }
  }
  out.max_rel_error = max_ref > 0.0 ? out.max_abs_error / max_ref : out.max_abs_error;
  if (worst_ratio >= 0.0) {
    out.status = jobs::Status::wrong_result;
    out.evidence = worst.str();
  }
  return out;
}

}  // namespace

std::string Shape::text() const {
  std::string t = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  if (lda != K || ldb != N || ldc != N)
    t += " (lda " + std::to_string(lda) + ", ldb " + std::to_string(ldb) + ", ldc " + std::to_string(ldc) + ")";
  if (!inputs.empty()) t += " with " + inputs + " inputs";
  return t;
}

std::vector<std::pair<std::string, std::int64_t>> Shape::case_keys() const {
  return {{"M", M}, {"N", N}, {"K", K}, {"lda", lda}, {"ldb", ldb}, {"ldc", ldc}};
}

std::optional<Shape> Shape::from_case(const std::map<std::string, std::int64_t>& keys, const std::string& inputs) {
  constexpr std::int64_t kMostElements = std::int64_t{1} << 26;  // 256 MiB of floats per operand at most
  if (keys.size() != 6) return std::nullopt;
  if (!inputs.empty() && std::find(kInputClasses.begin(), kInputClasses.end(), inputs) == kInputClasses.end())
    return std::nullopt;
  Shape s;
  s.inputs = inputs;
  for (auto [name, field] :
       {std::pair{"M", &s.M}, {"N", &s.N}, {"K", &s.K}, {"lda", &s.lda}, {"ldb", &s.ldb}, {"ldc", &s.ldc}}) {
    const auto it = keys.find(name);
    if (it == keys.end() || it->second < 1 || it->second > (1 << 16)) return std::nullopt;
    *field = static_cast<int>(it->second);
  }
  if (s.lda < s.K || s.ldb < s.N || s.ldc < s.N) return std::nullopt;
  if (std::int64_t{s.M} * s.lda > kMostElements || std::int64_t{s.K} * s.ldb > kMostElements ||
      std::int64_t{s.M} * s.ldc > kMostElements)
    return std::nullopt;
  return s;
}

Shape main_shape(const jobs::EvalSettings& settings) {
  auto size = [&](const char* key) {
    const auto it = settings.problem.find(key);
    const std::int64_t v = it == settings.problem.end() ? 256 : it->second;
    if (v <= 0 || v > 1 << 16)
      throw std::invalid_argument(std::string("gemm: evaluation.problem.") + key + "=" + std::to_string(v) +
                                  " must be in [1, 65536]");
    return static_cast<int>(v);
  };
  return tight(size("M"), size("N"), size("K"));
}

std::vector<Shape> verification_shapes(const Shape& main) {
  return {main,
          tight(1, 1, 1),
          tight(7, 5, 3),
          padded(33, 17, 65),
          tight(main.M + 1, std::max(1, main.N - 3), main.K + 5),
          padded(19, 23, 1031),
          tight(261, 6, 11),
          padded(3, 1037, 9),
          with_inputs(padded(33, 17, 65), "huge"),
          with_inputs(padded(19, 23, 1031), "huge"),
          with_inputs(padded(33, 17, 65), "tiny")};
}

void Operands::poison_c() { std::fill(c.begin(), c.end(), poison()); }

void Operands::refill(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  const float scale = input_scale(shape.inputs);  // a power of two: the scaled values are exact
  for (auto& x : a) x = scale * uniform(rng);
  for (auto& x : b) x = scale * uniform(rng);
}

Operands random_operands(const Shape& shape, std::mt19937_64& rng) {
  Operands ops;
  ops.shape = shape;
  ops.a.resize(static_cast<std::size_t>(shape.M) * shape.lda);
  ops.b.resize(static_cast<std::size_t>(shape.K) * shape.ldb);
  ops.c.resize(static_cast<std::size_t>(shape.M) * shape.ldc + kGuardFloats);
  ops.refill(rng);
  ops.poison_c();
  return ops;
}

CheckOutcome check_kernel(GemmFn kernel, const Shape& shape, std::mt19937_64& rng) {
  return check_kernel([kernel](Operands& ops) { ops.call(kernel); }, shape, rng);
}

CheckOutcome check_kernel(const Runner& run, const Shape& shape, std::mt19937_64& rng) {
  Operands ops = random_operands(shape, rng);
  const std::vector<float> a_before = ops.a, b_before = ops.b;
  run(ops);
  for (const auto& modified : {first_difference(a_before, ops.a, "A", shape.lda, shape),
                               first_difference(b_before, ops.b, "B", shape.ldb, shape)})
    if (!modified.empty()) return {jobs::Status::cheat_detected, jobs::kNaN, jobs::kNaN, modified};
  if (auto outside = outside_write(ops); !outside.empty())
    return {jobs::Status::wrong_result, jobs::kNaN, jobs::kNaN, outside};
  return compare_with_reference(ops);
}

std::string spot_check(const Operands& ops, std::mt19937_64& rng, int count) {
  const Shape& s = ops.shape;
  std::uniform_int_distribution<int> row(0, s.M - 1), col(0, s.N - 1);
  for (int n = 0; n < count; ++n) {
    const int i = row(rng), j = col(rng);
    const float c = ops.c[static_cast<std::size_t>(i) * s.ldc + j];
    const Reference r = reference_at(ops, i, j);
    if (!std::isfinite(c) || std::fabs(static_cast<double>(c) - r.value) > bound_for(s, r.magnitude)) {
      std::ostringstream out;
      out.precision(9);
      out << "timed call returned a wrong result: element (" << i << "," << j << ") = " << c << ", expected " << r.value
          << " for " << s.text();
      return out.str();
    }
  }
  return {};
}

}  // namespace kforge::kernels::gemm
