#include "gemm/gemm_family.hpp"

#include <cmath>
#include <stdexcept>

#include "host_data.hpp"
#include "kforge/kernels/input_classes.hpp"
#include "ptx_helpers.hpp"

namespace kforge::kernels::cuda {
namespace {

constexpr int kSampledElements = 2048;

struct GemmParams {
  std::int64_t BM, BN, BK, WM, WN, STAGES, GROUP_M;
};

GemmParams params_of(const jobs::Genome& g) {
  return {g.get_int("BM"), g.get_int("BN"),     g.get_int("BK"),     g.get_int("WM"),
          g.get_int("WN"), g.get_int("STAGES"), g.get_int("GROUP_M")};
}

// The operands as floats (exactly the bf16 values uploaded) for the double-precision reference.
struct GemmData {
  int M, N, K;
  std::vector<float> a, b;
  double abs_floor = 1e-6;  // the tolerance's absolute part, scaled with the input class's products
};

CheckOutcome check_gemm(const GemmData& d, const std::vector<float>& c, bool full, std::uint64_t sample_seed) {
  ToleranceCheck check("gemm C");
  auto element = [&](int i, int j) {
    double ref = 0.0, magnitude = 0.0;
    for (int k = 0; k < d.K; ++k) {
      const double p =
          static_cast<double>(d.a[static_cast<std::size_t>(i) * d.K + k]) * d.b[static_cast<std::size_t>(k) * d.N + j];
      ref += p;
      magnitude += std::fabs(p);
    }
    // fp32 accumulation of K products: 1e-3 of sum |a_ik b_kj| covers any summation order, while a missing or
    // doubled k tile moves the result by far more.
    const double tolerance = 1e-3 * magnitude + d.abs_floor;
    return check.element(c[static_cast<std::size_t>(i) * d.N + j], ref, tolerance, [&] {
      return "[" + std::to_string(i) + "," + std::to_string(j) + "] (M=" + std::to_string(d.M) +
             " N=" + std::to_string(d.N) + " K=" + std::to_string(d.K) + ")";
    });
  };
  if (full) {
    for (int i = 0; i < d.M; ++i)
      for (int j = 0; j < d.N; ++j)
        if (!element(i, j)) return check.outcome();
  } else {
    std::mt19937_64 rng(sample_seed);
    std::uniform_int_distribution<int> row(0, d.M - 1), col(0, d.N - 1);
    if (!element(0, 0) || !element(d.M - 1, d.N - 1)) return check.outcome();
    for (int n = 0; n < kSampledElements; ++n)
      if (!element(row(rng), col(rng))) break;
  }
  return check.outcome();
}

}  // namespace

jobs::Genome GemmFamily::default_genome() const {
  jobs::Genome g;
  for (const auto& [name, value] :
       {std::pair{"BM", 128}, {"BN", 128}, {"BK", 32}, {"WM", 64}, {"WN", 64}, {"STAGES", 3}, {"GROUP_M", 8}})
    g.params[name] = std::int64_t{value};
  return g;
}

std::optional<std::string> GemmFamily::invalid_reason(const jobs::Genome& g) const {
  if (auto why = outside_space(space(), g)) return why;
  const GemmParams p = params_of(g);
  if (p.BM % p.WM != 0) return "BM must be a multiple of WM";
  if (p.BN % p.WN != 0) return "BN must be a multiple of WN";
  if (p.WM * p.WN > 4096) return "WM * WN must be at most 4096 (the warp's accumulators must fit its registers)";
  return std::nullopt;
}

std::string GemmFamily::render(const jobs::Genome& g) const {
  if (auto why = invalid_reason(g)) throw std::invalid_argument("gemm (cuda): " + *why);
  const GemmParams p = params_of(g);
  std::string out = "// kforge gemm (cuda) candidate: " + g.to_text() + "\n";
  for (const auto& [name, value] : std::initializer_list<std::pair<const char*, std::int64_t>>{{"BM", p.BM},
                                                                                               {"BN", p.BN},
                                                                                               {"BK", p.BK},
                                                                                               {"WM", p.WM},
                                                                                               {"WN", p.WN},
                                                                                               {"STAGES", p.STAGES},
                                                                                               {"GROUP_M", p.GROUP_M}})
    out += "#define " + std::string(name) + " " + std::to_string(value) + "\n";
  return out + ptx_helpers_text() + gemm_kernel_body();
}

Problem GemmFamily::problem(const jobs::EvalSettings& settings) const {
  Problem p{{"M", 4096}, {"N", 4096}, {"K", 4096}};
  for (const auto& [name, value] : settings.problem) {
    if (!p.count(name)) throw std::invalid_argument("gemm (cuda): unknown problem size " + name + " (M, N, K)");
    p[name] = value;
  }
  for (const auto& [name, value] : p)
    if (value <= 0 || value > (1 << 20)) throw std::invalid_argument("gemm (cuda): problem " + name + " out of range");
  if (p["N"] % 8 != 0 || p["K"] % 8 != 0)
    throw std::invalid_argument("gemm (cuda): N and K must be multiples of 8 (16-byte bf16 rows), got " +
                                problem_text(p));
  return p;
}

std::vector<Problem> GemmFamily::verification_problems(const Problem&) const {
  return {{{"M", 128}, {"N", 128}, {"K", 64}},
          {{"M", 1}, {"N", 8}, {"K", 8}},
          {{"M", 67}, {"N", 200}, {"K", 136}},   // edges of every tile size in the space
          {{"M", 300}, {"N", 264}, {"K", 520}},  // several k tiles, partial block rows and columns
          with_inputs({{"M", 67}, {"N", 200}, {"K", 136}}, InputClass::huge),
          with_inputs({{"M", 67}, {"N", 200}, {"K", 136}}, InputClass::tiny)};
}

LaunchConfig GemmFamily::launch(const jobs::Genome& g, const Problem& problem) const {
  const GemmParams p = params_of(g);
  const std::int64_t M = problem_value(problem, "M"), N = problem_value(problem, "N");
  LaunchConfig l;
  l.grid[0] = static_cast<unsigned>(((M + p.BM - 1) / p.BM) * ((N + p.BN - 1) / p.BN));
  l.block[0] = static_cast<unsigned>((p.BM / p.WM) * (p.BN / p.WN) * 32);
  l.dynamic_shared_bytes = p.STAGES * (p.BM * (p.BK + 8) + p.BK * (p.BN + 8)) * 2;
  return l;
}

double GemmFamily::flop(const Problem& p) const {
  return 2.0 * problem_value(p, "M") * problem_value(p, "N") * problem_value(p, "K");
}

double GemmFamily::bytes(const Problem& p) const {
  const double M = problem_value(p, "M"), N = problem_value(p, "N"), K = problem_value(p, "K");
  return 2.0 * (M * K + K * N) + 4.0 * M * N;
}

HostCase GemmFamily::make_case(const Problem& problem, std::mt19937_64& rng, bool full_check) const {
  auto data = std::make_shared<GemmData>();
  data->M = static_cast<int>(problem_value(problem, "M"));
  data->N = static_cast<int>(problem_value(problem, "N"));
  data->K = static_cast<int>(problem_value(problem, "K"));
  const InputClass inputs = input_class(problem);
  if (inputs != InputClass::ordinary && inputs != InputClass::huge && inputs != InputClass::tiny)
    throw std::invalid_argument("gemm (cuda): no input class " + input_class_name(inputs));
  constexpr int kScale = input_classes::kGemmScaleExponent;
  const int exponent = inputs == InputClass::huge ? kScale : inputs == InputClass::tiny ? -kScale : 0;
  data->abs_floor = std::ldexp(1e-6, 2 * exponent);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  auto fill = [&](std::size_t count, std::vector<float>& as_float) {
    std::vector<std::uint16_t> bf16(count);
    as_float.resize(count);
    for (std::size_t n = 0; n < count; ++n) {
      bf16[n] = float_to_bf16(std::ldexp(uniform(rng), exponent));
      as_float[n] = bf16_to_float(bf16[n]);
    }
    return to_bytes(bf16);
  };
  HostCase c;
  c.problem = problem;
  c.inputs.push_back(fill(static_cast<std::size_t>(data->M) * data->K, data->a));
  c.inputs.push_back(fill(static_cast<std::size_t>(data->K) * data->N, data->b));
  c.output_bytes = {static_cast<std::size_t>(data->M) * data->N * sizeof(float)};
  c.args = [data](const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& out) {
    KernelArgs a;
    a.pointer(in.at(0)).pointer(in.at(1)).pointer(out.at(0)).i32(data->M).i32(data->N).i32(data->K);
    return a;
  };
  const std::uint64_t sample_seed = rng();
  c.check = [data, full_check, sample_seed](const std::vector<Bytes>& outputs) {
    return check_gemm(*data, from_bytes<float>(outputs.at(0)), full_check, sample_seed);
  };
  return c;
}

}  // namespace kforge::kernels::cuda
