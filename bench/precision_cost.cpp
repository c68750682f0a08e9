// bench/precision_cost: what a weight precision costs the model itself (docs/engines.md, "Precisions"). The double
// reference serves the same random sequences (teacher forced) on the model's weights as given (fp32) and rounded
// to bf16, int8 and fp8 (weight_precision.hpp); per precision it prints, over every position, the KL divergence
// KL(p_fp32 || p_precision) of the next-token distributions (mean, p99, max), the largest logit error relative to
// the row's largest logit (the contract's measure), and how often the greedy token stays the same. One JSON object
// with the run context on stdout. Engines are not involved: this is the distance between the models an fp32, a bf16
// and an int8 engine are each held to. A last row measures bf16 activations the same way: the reference's
// bf16_operands arithmetic against exact arithmetic, both on the bf16 weights (docs/engines.md, "Activations").
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

#include "bench_context.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/model_folder.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "kforge/kernels/openblas_kernels.hpp"

namespace po = boost::program_options;
using namespace kforge;
using namespace kforge::kernels::engine;

namespace {

using Rows = std::vector<std::vector<double>>;  // per sequence, its logit rows

Rows logits_of(const jobs::ModelSpec& model, const Weights& weights,
               const std::vector<std::vector<std::int32_t>>& sequences,
               ReferenceArithmetic arithmetic = ReferenceArithmetic::blocked) {
  const std::int64_t longest = static_cast<std::int64_t>(sequences.front().size());
  const ReferenceEngine reference(model, weights, 1, static_cast<int>(longest), arithmetic);
  std::vector<ForcedSequence> forced;
  for (const auto& s : sequences) forced.push_back({s, 0});
  return reference.teacher_forced(forced);
}

// KL(p || q) of the softmax distributions of two logit rows, in nats.
double kl_divergence(std::span<const double> p_logits, std::span<const double> q_logits) {
  const double p_max = *std::max_element(p_logits.begin(), p_logits.end());
  const double q_max = *std::max_element(q_logits.begin(), q_logits.end());
  double p_sum = 0.0, q_sum = 0.0;
  for (std::size_t i = 0; i < p_logits.size(); ++i) {
    p_sum += std::exp(p_logits[i] - p_max);
    q_sum += std::exp(q_logits[i] - q_max);
  }
  const double p_log_norm = p_max + std::log(p_sum), q_log_norm = q_max + std::log(q_sum);
  double kl = 0.0;
  for (std::size_t i = 0; i < p_logits.size(); ++i) {
    const double log_p = p_logits[i] - p_log_norm, log_q = q_logits[i] - q_log_norm;
    kl += std::exp(log_p) * (log_p - log_q);
  }
  return std::max(kl, 0.0);
}

struct Cost {
  std::vector<double> kl;
  double max_rel_error = 0.0;
  std::int64_t rows = 0, same_greedy = 0;
};

Cost cost_of(const Rows& exact, const Rows& rounded, std::int64_t vocab) {
  Cost c;
  const auto v = static_cast<std::size_t>(vocab);
  for (std::size_t s = 0; s < exact.size(); ++s)
    for (std::size_t at = 0; at + v <= exact[s].size(); at += v) {
      const std::span<const double> p(exact[s].data() + at, v), q(rounded[s].data() + at, v);
      c.kl.push_back(kl_divergence(p, q));
      double err = 0.0;
      for (std::size_t i = 0; i < v; ++i) err = std::max(err, std::abs(p[i] - q[i]));
      c.max_rel_error = std::max(c.max_rel_error, err / kernels::engine::logit_row_scale(p));
      ++c.rows;
      c.same_greedy += argmax(p) == argmax(q) ? 1 : 0;
    }
  return c;
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) try {
  kernels::use_openblas_kernels_for_this_cpu(argv);
  std::string model_dir;
  int sequences = 4, length = 128;
  std::uint64_t seed = 1;
  po::options_description opts(
      "precision_cost: what bf16, int8 and fp8 weights, and bf16 activations, cost a model (bench/README.md; "
      "docs/engines.md, \"Precisions\" and \"Activations\")");
  opts.add_options()("help", "this text")("model", po::value(&model_dir), "a Hugging Face model folder (required)")(
      "sequences", po::value(&sequences)->default_value(4), "random token sequences, teacher forced")(
      "length", po::value(&length)->default_value(128), "tokens per sequence")(
      "seed", po::value(&seed)->default_value(1), "of the sequences' tokens");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, opts), vm);
  po::notify(vm);
  if (vm.count("help") || model_dir.empty()) {
    std::cout << opts;
    return vm.count("help") ? 0 : 2;
  }
  const jobs::ModelSpec model = model_from_folder(std::filesystem::absolute(model_dir).lexically_normal());
  std::mt19937_64 gen(seed);
  std::vector<std::vector<std::int32_t>> tokens(static_cast<std::size_t>(sequences));
  for (auto& s : tokens)
    for (int t = 0; t < length; ++t)
      s.push_back(static_cast<std::int32_t>(gen() % static_cast<std::uint64_t>(model.vocab)));

  Weights exact = load_weights(model);
  const Rows exact_logits = logits_of(model, exact, tokens);
  std::ostringstream out;
  out << "{";
  bench::write_context_json(out, "precision_cost");
  out << ",\"model\":" << jobs::json_string(model_dir) << ",\"sequences\":" << sequences << ",\"length\":" << length
      << ",\"tolerance\":" << kLogitRelTolerance << ",\"precisions\":[";
  // Each row: the engine's declaration (weights, activations), what its logits are measured against (baseline),
  // and the tolerance that declaration is held to.
  bool first = true;
  const auto write = [&](WeightPrecision weights, ActivationPrecision activations, std::string_view baseline,
                         const Cost& c) {
    out << (first ? "" : ",") << "{\"weights\":\"" << precision_name(weights) << "\",\"activations\":\""
        << activation_precision_name(activations) << "\",\"baseline\":\"" << baseline
        << "\",\"tolerance\":" << logit_tolerance(activations) << ",\"rows\":" << c.rows
        << ",\"kl_mean\":" << std::accumulate(c.kl.begin(), c.kl.end(), 0.0) / static_cast<double>(c.kl.size())
        << ",\"kl_p99\":" << quantile(c.kl, 0.99) << ",\"kl_max\":" << quantile(c.kl, 1.0)
        << ",\"max_rel_logit_error\":" << c.max_rel_error
        << ",\"greedy_same\":" << static_cast<double>(c.same_greedy) / static_cast<double>(c.rows) << "}";
    first = false;
  };
  // int8 and fp8 each from a copy, then bf16 in place: at most one copy of the weights beside the reference's (a 1B
  // model's double reference alone takes 10 GB).
  const auto narrow = [&](WeightPrecision p) {
    Weights rounded = exact;
    round_weights(rounded, p);
    return cost_of(exact_logits, logits_of(model, rounded, tokens), model.vocab);
  };
  const Cost int8 = narrow(WeightPrecision::int8), fp8 = narrow(WeightPrecision::fp8);
  Weights& bf16 = exact;
  round_weights(bf16, WeightPrecision::bf16);
  const Rows bf16_logits = logits_of(model, bf16, tokens);
  const char* unrounded = "unrounded weights";
  write(WeightPrecision::bf16, ActivationPrecision::fp32, unrounded, cost_of(exact_logits, bf16_logits, model.vocab));
  write(WeightPrecision::int8, ActivationPrecision::fp32, unrounded, int8);
  write(WeightPrecision::fp8, ActivationPrecision::fp32, unrounded, fp8);  // the cuda engine's
  // The activation contract's measure: bf16 operands against exact arithmetic, both on the bf16 weights.
  write(WeightPrecision::bf16, ActivationPrecision::bf16, "exact arithmetic on the bf16 weights",
        cost_of(bf16_logits, logits_of(model, bf16, tokens, ReferenceArithmetic::bf16_operands), model.vocab));
  out << "],\"activation_tolerance\":" << kLogitRelToleranceBf16Activations << "}";
  std::cout << out.str() << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "precision_cost: " << e.what() << "\n";
  return 1;
}
