#include "rmsnorm/rmsnorm_family.hpp"

#include <cmath>
#include <stdexcept>

#include "host_data.hpp"
#include "kforge/kernels/input_classes.hpp"

namespace kforge::kernels::cuda {
namespace {

constexpr int kSampledRows = 64;

struct RmsnormData {
  int rows, hidden;
  std::vector<float> x, w;  // exactly the uploaded bf16 values
};

CheckOutcome check_rmsnorm(const RmsnormData& d, const std::vector<std::uint16_t>& y, bool full, std::uint64_t seed) {
  ToleranceCheck check("rmsnorm y");
  auto check_row = [&](int r) {
    const float* x = d.x.data() + static_cast<std::size_t>(r) * d.hidden;
    double sum = 0.0;
    for (int i = 0; i < d.hidden; ++i) sum += static_cast<double>(x[i]) * x[i];
    const double inv_rms = 1.0 / std::sqrt(sum / d.hidden + RmsnormFamily::kEps);
    for (int i = 0; i < d.hidden; ++i) {
      const double ref = x[i] * inv_rms * d.w[i];
      // bf16 output: rounding alone is 2^-9 relative; 8e-3 also allows fp32 sums in any order.
      if (!check.element(bf16_to_float(y[static_cast<std::size_t>(r) * d.hidden + i]), ref,
                         8e-3 * std::fabs(ref) + 1e-3,
                         [&] { return "[row " + std::to_string(r) + ", " + std::to_string(i) + "]"; }))
        return false;
    }
    return true;
  };
  if (full) {
    for (int r = 0; r < d.rows; ++r)
      if (!check_row(r)) break;
  } else {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> row(0, d.rows - 1);
    bool ok = check_row(0) && check_row(d.rows - 1);
    for (int n = 0; ok && n < kSampledRows; ++n) ok = check_row(row(rng));
  }
  return check.outcome();
}

// zero_rows: every third row all zeros (a kernel without the epsilon divides by zero); large_rows: every other
// row scaled by 2^40 (squares near 2^80: beyond fp16 and bf16 sums, while fp32 sums of any hidden size stay finite).
void apply_input_class(RmsnormData& d, InputClass inputs, Bytes& x_bytes) {
  if (inputs == InputClass::ordinary) return;
  if (inputs != InputClass::zero_rows && inputs != InputClass::large_rows)
    throw std::invalid_argument("rmsnorm (cuda): no input class " + input_class_name(inputs));
  std::vector<std::uint16_t> x = from_bytes<std::uint16_t>(x_bytes);
  for (int r = 0; r < d.rows; ++r) {
    if (inputs == InputClass::zero_rows ? r % 3 != 1 : r % 2 != 0) continue;
    for (int i = 0; i < d.hidden; ++i) {
      const std::size_t n = static_cast<std::size_t>(r) * d.hidden + i;
      x[n] = float_to_bf16(
          inputs == InputClass::zero_rows ? 0.f : std::ldexp(d.x[n], input_classes::kRmsnormLargeRowExponent));
      d.x[n] = bf16_to_float(x[n]);
    }
  }
  x_bytes = to_bytes(x);
}

}  // namespace

jobs::Genome RmsnormFamily::default_genome() const {
  jobs::Genome g;
  g.params["VEC"] = std::int64_t{8};
  g.params["THREADS_PER_ROW"] = std::int64_t{256};
  g.params["ROWS_PER_BLOCK"] = std::int64_t{1};
  return g;
}

std::optional<std::string> RmsnormFamily::invalid_reason(const jobs::Genome& g) const {
  return outside_space(space(), g);  // THREADS_PER_ROW * ROWS_PER_BLOCK > 1024 is a resource_reject
}

std::string RmsnormFamily::render(const jobs::Genome& g) const {
  if (auto why = invalid_reason(g)) throw std::invalid_argument("rmsnorm (cuda): " + *why);
  std::string out = "// kforge rmsnorm (cuda) candidate: " + g.to_text() + "\n";
  for (const char* name : {"VEC", "THREADS_PER_ROW", "ROWS_PER_BLOCK"})
    out += "#define " + std::string(name) + " " + std::to_string(g.get_int(name)) + "\n";
  return out + rmsnorm_kernel_body();
}

Problem RmsnormFamily::problem(const jobs::EvalSettings& settings) const {
  Problem p{{"rows", 8192}, {"hidden", 7168}};
  for (const auto& [name, value] : settings.problem) {
    if (!p.count(name)) throw std::invalid_argument("rmsnorm (cuda): unknown problem size " + name + " (rows, hidden)");
    p[name] = value;
  }
  if (p["rows"] <= 0 || p["rows"] > (1 << 24) || p["hidden"] <= 0 || p["hidden"] > (1 << 20) || p["hidden"] % 8 != 0)
    throw std::invalid_argument("rmsnorm (cuda): need 0 < rows <= 2^24 and 0 < hidden <= 2^20, hidden % 8 == 0; got " +
                                problem_text(p));
  return p;
}

std::vector<Problem> RmsnormFamily::verification_problems(const Problem&) const {
  return {{{"rows", 1}, {"hidden", 8}},
          {{"rows", 37}, {"hidden", 1032}},
          {{"rows", 129}, {"hidden", 4104}},
          with_inputs({{"rows", 37}, {"hidden", 1032}}, InputClass::zero_rows),
          with_inputs({{"rows", 37}, {"hidden", 4104}}, InputClass::large_rows)};
}

LaunchConfig RmsnormFamily::launch(const jobs::Genome& g, const Problem& p) const {
  const std::int64_t rows_per_block = g.get_int("ROWS_PER_BLOCK");
  LaunchConfig l;
  l.grid[0] = static_cast<unsigned>((problem_value(p, "rows") + rows_per_block - 1) / rows_per_block);
  l.block[0] = static_cast<unsigned>(g.get_int("THREADS_PER_ROW"));
  l.block[1] = static_cast<unsigned>(rows_per_block);
  return l;
}

double RmsnormFamily::flop(const Problem& p) const {
  return 4.0 * problem_value(p, "rows") * problem_value(p, "hidden");
}

double RmsnormFamily::bytes(const Problem& p) const {
  return 2.0 * (2.0 * problem_value(p, "rows") * problem_value(p, "hidden") + problem_value(p, "hidden"));
}

HostCase RmsnormFamily::make_case(const Problem& problem, std::mt19937_64& rng, bool full_check) const {
  auto data = std::make_shared<RmsnormData>();
  data->rows = static_cast<int>(problem_value(problem, "rows"));
  data->hidden = static_cast<int>(problem_value(problem, "hidden"));
  auto fill = [&](std::size_t count, float lo, float hi, std::vector<float>& as_float) {
    std::uniform_real_distribution<float> uniform(lo, hi);
    std::vector<std::uint16_t> bf16(count);
    as_float.resize(count);
    for (std::size_t n = 0; n < count; ++n) {
      bf16[n] = float_to_bf16(uniform(rng));
      as_float[n] = bf16_to_float(bf16[n]);
    }
    return to_bytes(bf16);
  };
  HostCase c;
  c.problem = problem;
  c.inputs.push_back(fill(static_cast<std::size_t>(data->rows) * data->hidden, -2.f, 2.f, data->x));
  apply_input_class(*data, input_class(problem), c.inputs.back());
  c.inputs.push_back(fill(static_cast<std::size_t>(data->hidden), 0.5f, 1.5f, data->w));
  c.output_bytes = {static_cast<std::size_t>(data->rows) * data->hidden * 2};
  c.args = [data](const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& out) {
    KernelArgs a;
    a.pointer(in.at(0)).pointer(in.at(1)).pointer(out.at(0)).i32(data->rows).i32(data->hidden).f32(kEps);
    return a;
  };
  const std::uint64_t seed = rng();
  c.check = [data, full_check, seed](const std::vector<Bytes>& outputs) {
    return check_rmsnorm(*data, from_bytes<std::uint16_t>(outputs.at(0)), full_check, seed);
  };
  return c;
}

}  // namespace kforge::kernels::cuda
