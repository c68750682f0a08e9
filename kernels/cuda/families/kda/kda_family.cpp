#include "kda/kda_family.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "host_data.hpp"
#include "kda/kda_check.hpp"
#include "kforge/kernels/input_classes.hpp"
#include "ptx_helpers.hpp"

namespace kforge::kernels::cuda {
namespace {

constexpr int D = KdaInputs::D;

// kda_source.cpp's shared memory: STAGES stages, the bf16 work area, then S, A, Bm, W, O and G_last.
std::int64_t shared_bytes(std::int64_t chunk, std::int64_t bv, std::int64_t stages, int in_bytes) {
  const std::int64_t stage = 4 * (chunk * D + chunk) + in_bytes * (2 * chunk * D + chunk * bv);
  const std::int64_t work = in_bytes == 2 ? 4 * (2 * chunk * D + chunk * bv) : 0;
  return stages * stage + work + 4 * (D * bv + 2 * chunk * chunk + 2 * chunk * bv + D);
}

// kda_tc_source.cpp's: STAGES bf16 stages; fp32 S, A, W, O and G_last; bf16 operands S, q, k (three ways), B and
// delta with rows padded by 8.
std::int64_t tc_shared_bytes(std::int64_t chunk, std::int64_t bv, std::int64_t stages) {
  const std::int64_t stage = 4 * (chunk * D + chunk) + 2 * (2 * chunk * D + chunk * bv);
  const std::int64_t fp32 = 4 * (D * bv + chunk * chunk + 2 * chunk * bv + D);
  const std::int64_t operands = 2 * (D * (bv + 8) + 4 * chunk * (D + 8) + chunk * (chunk + 8) + chunk * (bv + 8));
  return stages * stage + fp32 + operands;
}

// Every value of x as the nearest bf16 (round to nearest even), so the reference sees what the kernel reads.
void round_to_bf16(std::vector<float>& x) {
  for (auto& value : x) value = bf16_to_float(float_to_bf16(value));
}

std::vector<std::uint16_t> bf16_bits(const std::vector<float>& x) {
  std::vector<std::uint16_t> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = float_to_bf16(x[i]);
  return out;
}

// q and k of unit length (as KDA's in-kernel L2 norm makes them), v in [-1, 1], alpha in [0.5, 1), beta in (0, 1).
void fill_inputs(KdaInputs& in, std::mt19937_64& rng) {
  const std::size_t rows = in.tokens() * in.H;
  std::normal_distribution<float> normal(0.f, 1.f);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  auto unit_rows = [&](std::vector<float>& x) {
    x.resize(rows * D);
    for (std::size_t r = 0; r < rows; ++r) {
      double norm = 0.0;
      for (int c = 0; c < D; ++c) {
        const float value = x[r * D + c] = normal(rng);
        norm += static_cast<double>(value) * value;
      }
      for (int c = 0; c < D; ++c) x[r * D + c] = static_cast<float>(x[r * D + c] / std::sqrt(norm));
    }
  };
  unit_rows(in.q);
  unit_rows(in.k);
  in.v.resize(rows * D);
  for (auto& x : in.v) x = 2.f * unit(rng) - 1.f;
  in.g.resize(rows * D);
  for (auto& x : in.g) x = std::log(0.5f + 0.5f * unit(rng) * 0.999f);
  in.beta.resize(rows);
  for (auto& x : in.beta) x = 0.001f + 0.998f * unit(rng);
}

// Every g, or every v, as the input class says (kda_family.hpp's InputClass).
void apply_input_class(KdaInputs& in, InputClass inputs) {
  switch (inputs) {
    case InputClass::ordinary:
      return;
    case InputClass::gate_low:
      std::fill(in.g.begin(), in.g.end(), std::log(input_classes::kKdaGateLowerBoundAlpha));
      return;
    case InputClass::gate_high:
      std::fill(in.g.begin(), in.g.end(), 0.f);
      return;
    case InputClass::v_huge:
    case InputClass::v_tiny: {
      const int exponent = (inputs == InputClass::v_huge ? 1 : -1) * input_classes::kKdaValueScaleExponent;
      for (auto& x : in.v) x = std::ldexp(x, exponent);
      return;
    }
    default:
      throw std::invalid_argument("kda (cuda): no input class " + input_class_name(inputs));
  }
}

}  // namespace

jobs::Genome KdaFamily::default_genome() const {
  jobs::Genome g;
  g.params["CHUNK"] = std::int64_t{32};
  g.params["BV"] = std::int64_t{64};
  g.params["WARPS"] = std::int64_t{8};
  g.params["STAGES"] = std::int64_t{2};
  return g;
}

std::optional<std::string> KdaFamily::invalid_reason(const jobs::Genome& g) const {
  return outside_space(space(), g);  // shared memory over the limit is a resource_reject, not invalid
}

std::string KdaFamily::render(const jobs::Genome& g) const {
  if (auto why = invalid_reason(g)) throw std::invalid_argument(name() + " (cuda): " + *why);
  std::string out = "// kforge " + name() + " (cuda) candidate: " + g.to_text() + "\n";
  out += std::string("#define KF_BF16 ") + (precision_ == KdaPrecision::fp32 ? "0" : "1") + "\n";
  for (const char* name : {"CHUNK", "BV", "WARPS", "STAGES"})
    out += "#define " + std::string(name) + " " + std::to_string(g.get_int(name)) + "\n";
  return out + ptx_helpers_text() + kda_stage_text() +
         (precision_ == KdaPrecision::bf16_tc ? kda_tc_kernel_body() : kda_kernel_body());
}

Problem KdaFamily::problem(const jobs::EvalSettings& settings) const {
  Problem p{{"B", 1}, {"T", 8192}, {"H", 32}};
  for (const auto& [name, value] : settings.problem) {
    if (name == "D" && value == D) continue;
    if (name == "varlen" && (value == 0 || value == 1)) {
      if (value == 1) p[name] = 1;  // equal lengths are the problem without the key
      continue;
    }
    if (!p.count(name))
      throw std::invalid_argument(this->name() + " (cuda): unknown problem size " + name + "=" + std::to_string(value) +
                                  " (B, T, H, varlen 0 or 1; D must be 128)");
    p[name] = value;
  }
  if (p["B"] <= 0 || p["T"] <= 0 || p["H"] <= 0 || p["H"] > 65535 || p["B"] > 65535 ||
      p["B"] * p["T"] * p["H"] * D > (std::int64_t{1} << 31))
    throw std::invalid_argument(name() + " (cuda): problem out of range: " + problem_text(p));
  return p;
}

std::vector<Problem> KdaFamily::verification_problems(const Problem&) const {
  return {{{"B", 1}, {"T", 1}, {"H", 1}},
          {{"B", 1}, {"T", 37}, {"H", 2}},
          {{"B", 2}, {"T", 200}, {"H", 3}},
          {{"B", 3}, {"T", 90}, {"H", 2}, {"varlen", 1}},  // sequences of 1, 90 and 179 tokens in one batch
          with_inputs({{"B", 4}, {"T", 50}, {"H", 1}, {"varlen", 1}}, InputClass::gate_low),
          with_inputs({{"B", 1}, {"T", 200}, {"H", 2}}, InputClass::gate_low),  // T: longer than any chunk
          with_inputs({{"B", 1}, {"T", 200}, {"H", 1}}, InputClass::gate_high),
          with_inputs({{"B", 1}, {"T", 77}, {"H", 1}}, InputClass::v_huge),
          with_inputs({{"B", 1}, {"T", 77}, {"H", 1}}, InputClass::v_tiny)};
}

LaunchConfig KdaFamily::launch(const jobs::Genome& g, const Problem& p) const {
  LaunchConfig l;
  l.grid = {static_cast<unsigned>(D / g.get_int("BV")), static_cast<unsigned>(problem_value(p, "H")),
            static_cast<unsigned>(problem_value(p, "B"))};
  l.block[0] = static_cast<unsigned>(g.get_int("WARPS") * 32);
  const std::int64_t chunk = g.get_int("CHUNK"), bv = g.get_int("BV"), stages = g.get_int("STAGES");
  l.dynamic_shared_bytes = precision_ == KdaPrecision::bf16_tc ? tc_shared_bytes(chunk, bv, stages)
                                                               : shared_bytes(chunk, bv, stages, input_bytes());
  return l;
}

double KdaFamily::flop(const Problem& p) const {  // the recurrence: decay D^2, S^T k, update, S^T q: 2 D^2 each
  return 7.0 * D * D * problem_value(p, "B") * problem_value(p, "T") * problem_value(p, "H");
}

double KdaFamily::bytes(const Problem& p) const {  // q, k, v, beta, o in the inputs' precision; g, state fp32
  const double rows = static_cast<double>(problem_value(p, "B")) * problem_value(p, "T") * problem_value(p, "H");
  return input_bytes() * (4.0 * rows * D + rows) + 4.0 * rows * D +
         4.0 * problem_value(p, "B") * problem_value(p, "H") * D * D;
}

HostCase KdaFamily::make_case(const Problem& problem, std::mt19937_64& rng, bool full_check) const {
  auto in = std::make_shared<KdaInputs>();
  in->B = static_cast<int>(problem_value(problem, "B"));
  in->T = static_cast<int>(problem_value(problem, "T"));
  in->H = static_cast<int>(problem_value(problem, "H"));
  const bool varlen = problem.count("varlen") && problem.at("varlen") != 0;
  const std::vector<int> starts = kda_sequence_starts(in->B, in->T, varlen);
  if (varlen) in->starts = starts;
  fill_inputs(*in, rng);
  apply_input_class(*in, input_class(problem));
  const bool bf16 = bf16_tensors(), tensor_core = precision_ == KdaPrecision::bf16_tc;
  if (bf16)
    for (auto* x : {&in->q, &in->k, &in->v, &in->beta}) round_to_bf16(*x);
  auto input = [bf16](const std::vector<float>& x) { return bf16 ? to_bytes(bf16_bits(x)) : to_bytes(x); };
  HostCase c;
  c.problem = problem;
  c.inputs = {input(in->q), input(in->k), input(in->v), to_bytes(in->g), input(in->beta), to_bytes(starts)};
  c.output_bytes = {in->q.size() * input_bytes(), static_cast<std::size_t>(in->B) * in->H * D * D * sizeof(float)};
  c.args = [in](const std::vector<std::uint64_t>& i, const std::vector<std::uint64_t>& o) {
    KernelArgs a;
    for (int n = 0; n < 6; ++n) a.pointer(i.at(n));  // q k v g beta cu_seqlens
    a.pointer(o.at(0)).pointer(o.at(1)).i32(in->H);
    return a;
  };
  const std::uint64_t seed = rng();
  const double o_rel_tolerance = 1e-3 + (bf16 ? std::ldexp(1.0, -8) : 0.0);
  c.check = [in, full_check, seed, o_rel_tolerance, bf16, tensor_core,
             family = name()](const std::vector<Bytes>& outputs) {
    std::vector<float> o;
    if (bf16)
      for (std::uint16_t bits : from_bytes<std::uint16_t>(outputs.at(0))) o.push_back(bf16_to_float(bits));
    else
      o = from_bytes<float>(outputs.at(0));
    if (tensor_core) return check_kda_rms(family, *in, o, from_bytes<float>(outputs.at(1)), full_check, seed);
    return check_kda(family, *in, o, from_bytes<float>(outputs.at(1)), full_check, seed, o_rel_tolerance);
  };
  return c;
}

}  // namespace kforge::kernels::cuda
