// bench/reference_cost: what the double reference engine costs at a model's shape (docs/engines.md, "Verification"):
// every engine candidate is checked against it on the node's CPU, step by step through the verification script
// (engine_verification.cpp: about 70 steps of one to three sequences) and teacher-forced over the requests checked
// after every served run. At 1B parameters this, not the GPU, sets how long a candidate's evaluation takes, so the
// acceptance script's time boxes (bench/gpu-acceptance.sh) are sized from these figures. Prints one JSON object with
// the run context: at one thread and at --threads (the baseline and the figure, in the same run), the seconds of a
// prefill step, of decode steps of one and of three sequences, and of teacher forcing per token, the script's cost
// estimated from them, and the speedup. Defaults: Llama-3.2-1B's shape (engine-cuda-1b.yaml).
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/reference_engine.hpp"

namespace po = boost::program_options;
using namespace kforge;
using namespace kforge::kernels::engine;

namespace {

template <typename Fn>
double seconds_of(Fn&& fn) {
  const auto started = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

struct Cost {
  double prefill_s = 0.0, decode1_s = 0.0, decode3_s = 0.0, forced_s_per_token = 0.0;
  // The script: 5 prefills, then about 70 steps of one to three sequences (R0's 66 decodes beside the others').
  double script_s() const { return 5 * prefill_s + 70 * (decode1_s + decode3_s) / 2.0; }
};

// The reference's steps and checks at `threads` threads: three slots prefilled with 7 tokens each (the script's
// first prompts), decode steps of one and of three sequences, one sequence teacher-forced.
Cost cost_at(const jobs::ModelSpec& m, const Weights& weights, int threads, std::int64_t forced_tokens) {
  set_reference_threads(threads);
  ReferenceEngine reference(m, weights, 3, static_cast<int>(forced_tokens + 16));
  const auto tokens = [&](std::int64_t n, std::int64_t first) {
    std::vector<std::int32_t> out;
    for (std::int64_t i = 0; i < n; ++i) out.push_back(static_cast<std::int32_t>((first + 7919 * i) % m.vocab));
    return out;
  };
  Cost c;
  for (int slot = 0; slot < 3; ++slot)
    c.prefill_s += seconds_of([&] { reference.step({{slot, 0, 7}}, tokens(7, slot)); }) / 3.0;
  constexpr int kSteps = 3;
  for (int i = 0; i < kSteps; ++i) {
    c.decode1_s += seconds_of([&] { reference.step({{0, reference.position(0), 1}}, tokens(1, i)); }) / kSteps;
    const std::vector<SeqDesc> three = {
        {0, reference.position(0), 1}, {1, reference.position(1), 1}, {2, reference.position(2), 1}};
    c.decode3_s += seconds_of([&] { reference.step(three, tokens(3, i)); }) / kSteps;
  }
  const std::vector<std::int32_t> sequence = tokens(forced_tokens, 11);
  const std::vector<ForcedSequence> forced{{sequence, 0}};
  c.forced_s_per_token =
      seconds_of([&] { (void)reference.teacher_forced(forced); }) / static_cast<double>(forced_tokens);
  return c;
}

std::string json_of(const Cost& c, int threads) {
  std::ostringstream out;
  out << "{\"threads\":" << threads << ",\"prefill_step_7_tokens_s\":" << c.prefill_s
      << ",\"decode_step_1_sequence_s\":" << c.decode1_s << ",\"decode_step_3_sequences_s\":" << c.decode3_s
      << ",\"teacher_forced_s_per_token\":" << c.forced_s_per_token
      << ",\"verification_script_estimate_s\":" << c.script_s() << "}";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  jobs::ModelSpec m;
  m.architecture = "llama";
  std::int64_t forced_tokens = 64;
  int threads = usable_cpus();
  po::options_description opts("reference_cost [options]");
  opts.add_options()("help", "this text")("layers", po::value(&m.layers)->default_value(16))(
      "hidden", po::value(&m.hidden)->default_value(2048))("heads", po::value(&m.heads)->default_value(32))(
      "kv-heads", po::value(&m.kv_heads)->default_value(8))(
      "mlp-hidden", po::value(&m.mlp_hidden)->default_value(8192))("vocab", po::value(&m.vocab)->default_value(128256))(
      "forced-tokens", po::value(&forced_tokens)->default_value(64), "tokens of the teacher-forced sequence")(
      "threads", po::value(&threads)->default_value(usable_cpus()),
      "the reference's threads, against 1 in the same run (default: this process's CPUs)");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, opts), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "reference_cost: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  m.head_dim = m.hidden / m.heads;
  const Weights weights = load_weights(m);  // deterministic random weights (weight_seed)
  const Cost one = cost_at(m, weights, 1, forced_tokens);
  const Cost many = cost_at(m, weights, threads, forced_tokens);
  std::cout << "{";
  bench::write_context_json(std::cout, "reference_cost");
  std::cout << ",\"model\":{\"layers\":" << m.layers << ",\"hidden\":" << m.hidden << ",\"heads\":" << m.heads
            << ",\"kv_heads\":" << m.kv_heads << ",\"mlp_hidden\":" << m.mlp_hidden << ",\"vocab\":" << m.vocab
            << "},\"one_thread\":" << json_of(one, 1) << ",\"threads\":" << json_of(many, threads)
            << ",\"speedup\":" << one.script_s() / many.script_s() << "}\n";
  return 0;
}
