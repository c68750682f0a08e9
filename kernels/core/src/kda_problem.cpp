#include "kforge/kernels/kda_problem.hpp"

#include "kforge/kernels/input_classes.hpp"

#include <bit>
#include <sstream>
#include <stdexcept>

namespace kforge::kernels::kda {
namespace {

// A quiet NaN with a recognisable payload: a candidate writing any real result changes it.
constexpr std::uint32_t kPoisonBits = 0x7fc0bad0u;
constexpr std::size_t kGuardFloats = 64;  // poisoned floats after o's end, to catch writes past it

float poison() { return std::bit_cast<float>(kPoisonBits); }
bool is_poison(float x) { return std::bit_cast<std::uint32_t>(x) == kPoisonBits; }

void unit_rows(std::vector<float>& x, std::size_t rows, int D, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  x.resize(rows * static_cast<std::size_t>(D));
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = x.data() + r * static_cast<std::size_t>(D);
    std::vector<double> raw(static_cast<std::size_t>(D));
    double norm = 0.0;
    for (auto& value : raw) {
      value = normal(rng);
      norm += value * value;
    }
    norm = std::sqrt(norm);
    for (int c = 0; c < D; ++c) row[c] = static_cast<float>(raw[static_cast<std::size_t>(c)] / norm);
  }
}

std::string first_difference(const std::vector<float>& before, const std::vector<float>& after, const char* name,
                             const Shape& s) {
  for (std::size_t x = 0; x < before.size(); ++x)
    if (std::bit_cast<std::uint32_t>(before[x]) != std::bit_cast<std::uint32_t>(after[x]))
      return std::string("input ") + name + " modified at index " + std::to_string(x) + " for " + s.text();
  return {};
}

std::string written_past_end(const Inputs& in) {
  for (std::size_t x = in.shape.rows() * static_cast<std::size_t>(in.shape.D); x < in.o.size(); ++x)
    if (!is_poison(in.o[x])) return "wrote past the end of o at index " + std::to_string(x) + " for " + in.shape.text();
  return {};
}

struct HeadComparison {
  std::string failure;  // the worst element outside the tolerance, or a NaN/Inf; "" when all are within
  double max_abs_error = 0.0, max_ref = 0.0;
};

HeadComparison compare_head(const Inputs& in, int b, int h, const std::vector<double>& ref) {
  const Shape& s = in.shape;
  const std::size_t D = static_cast<std::size_t>(s.D);
  HeadComparison out;
  for (double r : ref) out.max_ref = std::max(out.max_ref, std::fabs(r));
  double worst_ratio = 1.0;
  for (int t = 0; t < s.T; ++t)
    for (std::size_t col = 0; col < D; ++col) {
      const float got = in.o[((static_cast<std::size_t>(b) * s.T + t) * s.H + h) * D + col];
      const double want = ref[static_cast<std::size_t>(t) * D + col];
      auto where = [&] {
        return "o[b=" + std::to_string(b) + ", t=" + std::to_string(t) + ", h=" + std::to_string(h) + ", " +
               std::to_string(col) + "] for " + s.text();
      };
      if (!std::isfinite(got)) return {(std::isnan(got) ? "NaN at " : "Inf at ") + where(), 0.0, out.max_ref};
      const double err = std::fabs(static_cast<double>(got) - want);
      const double bound = kRelTolerance * std::fabs(want) + kNormTolerance * out.max_ref + 1e-30;
      out.max_abs_error = std::max(out.max_abs_error, err);
      if (err / bound > worst_ratio) {
        worst_ratio = err / bound;
        std::ostringstream text;
        text.precision(9);
        text << "wrong result: worst element " << where() << " = " << got << ", expected " << want << ", error " << err
             << " > bound " << bound << " (" << kRelTolerance << " |ref| + " << kNormTolerance << " max|ref|)";
        out.failure = text.str();
      }
    }
  return out;
}

}  // namespace

std::string Shape::text() const {
  return "B=" + std::to_string(B) + " H=" + std::to_string(H) + " T=" + std::to_string(T) + " D=" + std::to_string(D) +
         (inputs.empty() ? "" : " with " + inputs + " inputs");
}

std::vector<std::pair<std::string, std::int64_t>> Shape::case_keys() const {
  return {{"B", B}, {"H", H}, {"T", T}, {"D", D}};
}

std::optional<Shape> Shape::from_case(const std::map<std::string, std::int64_t>& keys, const std::string& inputs) {
  constexpr std::int64_t kMostElements = std::int64_t{1} << 26;  // per input tensor
  if (keys.size() != 4) return std::nullopt;
  if (!inputs.empty() && std::find(kInputClasses.begin(), kInputClasses.end(), inputs) == kInputClasses.end())
    return std::nullopt;
  Shape s;
  s.inputs = inputs;
  for (auto [name, field] : {std::pair{"B", &s.B}, {"H", &s.H}, {"T", &s.T}, {"D", &s.D}}) {
    const auto it = keys.find(name);
    if (it == keys.end() || it->second < 1 || it->second > (1 << 16)) return std::nullopt;
    *field = static_cast<int>(it->second);
  }
  if (static_cast<std::int64_t>(s.rows()) * s.D > kMostElements) return std::nullopt;
  return s;
}

Shape main_shape(const jobs::EvalSettings& settings) {
  for (const auto& [name, value] : settings.problem)
    if (name != "B" && name != "H" && name != "T" && name != "D")
      throw std::invalid_argument("kda (host): unknown evaluation.problem." + name + " (known: B, H, T, D)");
  auto size = [&](const char* key, std::int64_t fallback, std::int64_t most) {
    const auto it = settings.problem.find(key);
    const std::int64_t v = it == settings.problem.end() ? fallback : it->second;
    if (v <= 0 || v > most)
      throw std::invalid_argument(std::string("kda (host): evaluation.problem.") + key + "=" + std::to_string(v) +
                                  " must be in [1, " + std::to_string(most) + "]");
    return static_cast<int>(v);
  };
  Shape s{size("B", 1, 4096), size("H", 4, 4096), size("T", 256, 1 << 20), size("D", 128, 1024), {}};
  if (static_cast<double>(s.rows()) * s.D > static_cast<double>(std::int64_t{1} << 31))
    throw std::invalid_argument("kda (host): evaluation.problem " + s.text() + " has over 2^31 elements per tensor");
  return s;
}

std::vector<Shape> verification_shapes(const Shape& main) {
  const int D = main.D;
  return {main,
          Shape{1, 1, 1, D, {}},
          Shape{1, 2, 37, D, {}},
          Shape{2, 1, 77, D, {}},
          Shape{1, 2, 200, D, "gate_low"},
          Shape{1, 1, 1, D, "gate_low"},
          Shape{1, 1, 200, D, "gate_high"},
          Shape{1, 1, 77, D, "v_huge"},
          Shape{1, 1, 77, D, "v_tiny"}};
}

namespace {
void apply_input_class(Inputs& in) {
  const std::string& c = in.shape.inputs;
  if (c.empty()) return;
  if (c == "gate_low" || c == "gate_high") {
    std::fill(in.g.begin(), in.g.end(), c == "gate_low" ? std::log(input_classes::kKdaGateLowerBoundAlpha) : 0.f);
  } else if (c == "v_huge" || c == "v_tiny") {
    const int exponent = input_classes::kKdaValueScaleExponent;
    const float scale = std::ldexp(1.f, c == "v_huge" ? exponent : -exponent);
    for (auto& x : in.v) x *= scale;
  } else {
    throw std::invalid_argument("kda (host): unknown input class '" + c + "'");
  }
}
}  // namespace

void Inputs::poison_o() { std::fill(o.begin(), o.end(), poison()); }

Inputs random_inputs(const Shape& shape, std::mt19937_64& rng) {
  Inputs in;
  in.shape = shape;
  const std::size_t rows = shape.rows(), elements = rows * static_cast<std::size_t>(shape.D);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  unit_rows(in.q, rows, shape.D, rng);
  unit_rows(in.k, rows, shape.D, rng);
  in.v.resize(elements);
  for (auto& x : in.v) x = 2.f * unit(rng) - 1.f;
  in.g.resize(elements);
  for (auto& x : in.g) x = std::log(0.5f + 0.4995f * unit(rng));  // alpha in [0.5, 1): g <= 0
  in.beta.resize(rows);
  for (auto& x : in.beta) x = 0.001f + 0.998f * unit(rng);
  apply_input_class(in);
  in.o.resize(elements + kGuardFloats);
  in.poison_o();
  return in;
}

CheckOutcome check_kernel(KdaFn kernel, const Shape& shape, std::mt19937_64& rng) {
  return check_kernel([kernel](Inputs& in) { in.call(kernel); }, shape, rng);
}

CheckOutcome check_kernel(const Runner& run, const Shape& shape, std::mt19937_64& rng) {
  Inputs in = random_inputs(shape, rng);
  const Inputs before = in;
  run(in);
  for (const auto& modified :
       {first_difference(before.q, in.q, "q", shape), first_difference(before.k, in.k, "k", shape),
        first_difference(before.v, in.v, "v", shape), first_difference(before.g, in.g, "g", shape),
        first_difference(before.beta, in.beta, "beta", shape)})
    if (!modified.empty()) return {jobs::Status::cheat_detected, jobs::kNaN, jobs::kNaN, modified};
  if (auto outside = written_past_end(in); !outside.empty())
    return {jobs::Status::wrong_result, jobs::kNaN, jobs::kNaN, outside};
  CheckOutcome out;
  double max_ref = 0.0;
  std::vector<double> state, ref;
  for (int b = 0; b < shape.B; ++b)
    for (int h = 0; h < shape.H; ++h) {
      recurrence_head(shape, b, h, in.q.data(), in.k.data(), in.v.data(), in.g.data(), in.beta.data(), state, ref);
      const HeadComparison head = compare_head(in, b, h, ref);
      if (!head.failure.empty()) return {jobs::Status::wrong_result, jobs::kNaN, jobs::kNaN, head.failure};
      out.max_abs_error = std::max(out.max_abs_error, head.max_abs_error);
      max_ref = std::max(max_ref, head.max_ref);
    }
  out.max_rel_error = max_ref > 0.0 ? out.max_abs_error / max_ref : out.max_abs_error;
  return out;
}

std::string spot_check(const Inputs& in, std::mt19937_64& rng) {
  const Shape& s = in.shape;
  const int b = std::uniform_int_distribution<int>(0, s.B - 1)(rng);
  const int h = std::uniform_int_distribution<int>(0, s.H - 1)(rng);
  std::vector<double> state, ref;
  recurrence_head(s, b, h, in.q.data(), in.k.data(), in.v.data(), in.g.data(), in.beta.data(), state, ref);
  const HeadComparison head = compare_head(in, b, h, ref);
  return head.failure.empty() ? std::string{} : "timed call returned a wrong result: " + head.failure;
}

}  // namespace kforge::kernels::kda
