// One engine serving one model and trace, for bench/engine_vs_peers.py: writes the model's weights as safetensors
// and the trace as JSON (so PyTorch and llama.cpp serve exactly the same weights and prompts), then serves the
// trace with a kforge engine (rendered from a genome, or a source file) through the harness's own serving loop
// and candidate process (kernels/engine and kernels/host/engine), at each concurrency asked, and prints one JSON
// object: output tokens/s, TTFT/ITL, the greedy tokens and the largest logit error against the double reference per
// run; optionally the double reference engine's greedy tokens and its logits at every step of request 0 (the
// independent check of the reference against the peers). An engine that fails verification, or whose answers in
// any run disagree with the reference, is not timed: exit 1 with the evidence.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "engine/engine_call.hpp"
#include "engine/engine_template.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/model_folder.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/served_checks.hpp"
#include "kforge/engine/serving_loop.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/engine/workload_trace.hpp"
#include "kforge/kernels/openblas_kernels.hpp"
#include "sandbox/cxx_compile.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace kforge;
using namespace kforge::kernels::engine;

namespace {

void write_tokens(std::ostream& out, const std::vector<std::vector<std::int32_t>>& outputs) {
  out << "[";
  for (std::size_t r = 0; r < outputs.size(); ++r) {
    out << (r ? "," : "") << "[";
    for (std::size_t t = 0; t < outputs[r].size(); ++t) out << (t ? "," : "") << outputs[r][t];
    out << "]";
  }
  out << "]";
}

void write_trace(const std::string& path, const WorkloadTrace& trace, std::int64_t vocab) {
  std::ofstream out(path);
  out << "{\"vocab\":" << vocab << ",\"requests\":[";
  for (std::size_t r = 0; r < trace.requests.size(); ++r) {
    const auto& req = trace.requests[r];
    out << (r ? "," : "") << "{\"output_tokens\":" << req.output_tokens << ",\"prompt\":[";
    for (std::size_t t = 0; t < req.prompt.size(); ++t) out << (t ? "," : "") << req.prompt[t];
    out << "]}";
  }
  out << "]}\n";
  if (!out) throw std::runtime_error("cannot write " + path);
}

// The reference engine's logits at request 0's prefill and at each of its greedy decode steps (rows of vocab
// doubles, little-endian), and its greedy tokens for every request served one at a time.
std::vector<std::vector<std::int32_t>> reference_outputs(const jobs::ModelSpec& model, const Weights& weights,
                                                         const WorkloadTrace& trace, const std::string& logits_path) {
  ReferenceEngine ref(model, weights, 1, static_cast<int>(trace.max_context()));
  std::vector<std::vector<std::int32_t>> outputs;
  std::ofstream logits_out;
  if (!logits_path.empty()) logits_out.open(logits_path, std::ios::binary);
  for (std::size_t r = 0; r < trace.requests.size(); ++r) {
    const auto& req = trace.requests[r];
    std::vector<std::int32_t> generated;
    std::vector<double> logits = ref.step({{0, 0, static_cast<std::int64_t>(req.prompt.size())}}, req.prompt);
    for (;;) {
      if (r == 0 && logits_out)
        logits_out.write(reinterpret_cast<const char*>(logits.data()),
                         static_cast<std::streamsize>(logits.size() * sizeof(double)));
      generated.push_back(static_cast<std::int32_t>(argmax(std::span<const double>(logits))));
      if (static_cast<std::int64_t>(generated.size()) == req.output_tokens) break;
      const auto pos = static_cast<std::int64_t>(req.prompt.size() + generated.size()) - 1;
      logits = ref.step({{0, pos, 1}}, {generated.back()});
    }
    outputs.push_back(std::move(generated));
  }
  if (!logits_path.empty() && !logits_out) throw std::runtime_error("cannot write " + logits_path);
  return outputs;
}

struct ServedEngine {
  ServingResult fastest;
  double max_rel_error = 0.0;     // every logit compared, every request of every run
  std::int64_t checked_rows = 0;  // logit rows compared with the reference
};

// The engine verified first, as a campaign verifies it (the script traces and the serving envelope), then served
// `runs` times, each in a fresh process and folder (nothing of an earlier run within its reach), and after every
// run every request checked against the double reference fed the same tokens. Throws, so that nothing is timed,
// when verification or any check fails. The fastest run is reported (bench/engine_vs_peers.py does the same for
// every peer): on a shared machine it is the run least disturbed by other work.
ServedEngine serve_engine(const fs::path& artefact, const fs::path& scratch, const jobs::EngineSpec& e,
                          Weights& weights, const ReferenceEngine& reference, const WorkloadTrace& trace,
                          const BatchPolicy& policy, int runs) {
  const std::int64_t vocab = e.model.vocab;
  const EngineSizes sizes = engine_sizes_for(e, policy);
  std::unique_ptr<kernels::host::CandidateProcess> process = engine_process_in(artefact, scratch / "verify");
  const StepFn step = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens, const RowWants&) {
    return step_engine(*process, seqs, tokens, vocab);
  };
  init_engine(*process, e.model, weights, sizes);
  jobs::EvalSettings settings;
  const kernels::VerifyResult v = verify_served_engine(settings, e, policy, weights, reference, harness_secret(), step);
  if (v.status != jobs::Status::ok)
    throw std::runtime_error("the engine fails verification at concurrency " + std::to_string(e.workload.concurrency) +
                             ", so it is not timed: " + v.evidence);
  ServedEngine out;
  out.max_rel_error = v.max_rel_error;
  std::vector<std::size_t> every(trace.requests.size());
  for (std::size_t r = 0; r < every.size(); ++r) every[r] = r;
  for (int n = 0; n < runs; ++n) {
    process.reset();
    process = engine_process_in(artefact, scratch / ("run-" + std::to_string(n)));
    init_engine(*process, e.model, weights, sizes);
    const LogitSampler sampler = draw_sampler(vocab, harness_secret());
    ServingResult r = serve(trace, policy, vocab, step, &sampler);
    if (!r.failure.empty()) throw std::runtime_error("serving failed: " + r.failure);
    const CheckOutcome check = check_requests(reference, trace, r, sampler, every, "run " + std::to_string(n + 1));
    if (!check.wrong.empty())
      throw std::runtime_error("the engine's answers disagree with the reference: " + check.wrong);
    out.max_rel_error = std::max(out.max_rel_error, check.max_rel_error);
    out.checked_rows += check.rows;
    r.sampled = {};
    if (n == 0 || r.output_tokens_per_s > out.fastest.output_tokens_per_s) out.fastest = std::move(r);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  kernels::use_openblas_kernels_for_this_cpu(argv);  // the reference's checks at the CPU's speed
  jobs::ModelSpec model;
  jobs::WorkloadSpec workload;
  model.architecture = "llama";
  std::string model_dir, genome_text, source_file, weights_out, trace_out, logits_out, concurrency_list = "1,8";
  bool untied = false, reference = false;
  int runs = 1;
  po::options_description opts("engine_serve: one kforge engine serving a model's trace (bench/README.md)");
  opts.add_options()("help", "this text")("architecture", po::value(&model.architecture)->default_value("llama"),
                                          "llama | kimi-linear")(
      "layers", po::value(&model.layers)->default_value(4), "")("hidden", po::value(&model.hidden)->default_value(256),
                                                                "")(
      "heads", po::value(&model.heads)->default_value(8), "")("kv-heads", po::value(&model.kv_heads)->default_value(2),
                                                              "")("head-dim",
                                                                  po::value(&model.head_dim)->default_value(32), "")(
      "mlp-hidden", po::value(&model.mlp_hidden)->default_value(768), "")(
      "vocab", po::value(&model.vocab)->default_value(1024), "")("untied", po::bool_switch(&untied), "own LM head")(
      "attention-every", po::value(&model.attention_every)->default_value(4), "kimi-linear")(
      "rope-theta", po::value(&model.rope_theta)->default_value(10000.0), "")(
      "norm-eps", po::value(&model.norm_eps)->default_value(1e-5), "")(
      "weight-seed", po::value(&model.weight_seed)->default_value(1), "random weights from this seed")(
      "weights", po::value(&model.weights_file), "serve these weights (safetensors or HDF5) instead")(
      "model", po::value(&model_dir),
      "a Hugging Face model folder: its config.json and weights replace every option above")(
      "trace-seed", po::value(&workload.seed)->default_value(1), "")(
      "requests", po::value(&workload.requests)->default_value(16), "")(
      "prompt-min", po::value(&workload.prompt_min)->default_value(32), "")(
      "prompt-max", po::value(&workload.prompt_max)->default_value(128), "")(
      "output-min", po::value(&workload.output_min)->default_value(16), "")(
      "output-max", po::value(&workload.output_max)->default_value(64), "")(
      "concurrency", po::value(&concurrency_list)->default_value("1,8"), "closed-loop concurrencies, comma separated")(
      "genome", po::value(&genome_text), "engine genome, canonical text (K=V;K=\"s\")")(
      "source", po::value(&source_file),
      "engine source file instead of a rendered genome (--genome still "
      "gives max_batch, prefill_chunk, schedule)")("runs", po::value(&runs)->default_value(1),
                                                   "serve the trace this often; report the fastest run")(
      "weights-out", po::value(&weights_out), "write the weights here (safetensors)")(
      "trace-out", po::value(&trace_out), "write the trace here (JSON)")(
      "reference", po::bool_switch(&reference), "also serve the trace with the double reference engine")(
      "reference-logits-out", po::value(&logits_out), "with --reference: request 0's logits per step (f64)");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, opts), vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  po::notify(vm);
  model.tied_embeddings = !untied;
  if (!model_dir.empty()) model = model_from_folder(std::filesystem::absolute(model_dir).lexically_normal());
  check_model(model);
  std::vector<std::int64_t> concurrencies;
  for (std::stringstream in(concurrency_list); in.good();) {
    std::string item;
    std::getline(in, item, ',');
    concurrencies.push_back(std::stoll(item));
  }

  jobs::Candidate candidate;
  candidate.family = "engine";
  candidate.backend = "host";
  candidate.genome = jobs::Genome::from_text(genome_text);
  // The model rounded to the precision the genome declares (docs/engines.md, "Precisions"): what the engine, the
  // reference and, through --weights-out, the peers serve.
  Weights weights = load_weights(model);
  round_weights(weights, weights_from_genome(candidate.genome));
  if (!weights_out.empty()) write_safetensors(weights_out, weights);
  const WorkloadTrace base_trace = make_trace(workload, model.vocab);
  if (!trace_out.empty()) write_trace(trace_out, base_trace, model.vocab);

  if (!source_file.empty()) {
    std::ifstream in(source_file);
    if (!in) throw std::runtime_error("cannot read " + source_file);
    candidate.source.assign(std::istreambuf_iterator<char>(in), {});
    if (candidate.source.empty()) throw std::runtime_error(source_file + " is empty: no engine source to serve");
  }
  const BatchPolicy policy = batch_policy_from_genome(candidate.genome);
  const fs::path scratch = fs::temp_directory_path() / ("kforge-engine-serve-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  jobs::EvalSettings settings;
  kernels::EvalContext ctx{&settings, scratch, 1, ""};
  const std::string source =
      candidate.source.empty() ? render_engine_source(engine_params_from_genome(candidate.genome)) : candidate.source;
  const kernels::CompileResult compiled = kernels::host::compile_shared_object(source, candidate, ctx, "engine_serve");
  if (!compiled.ok) throw std::runtime_error("the engine did not compile:\n" + compiled.log);

  const ReferenceEngine checker(model, weights, 1, 1);  // checks every served request (teacher_forced)
  std::ostringstream out;
  out << "{";
  bench::write_context_json(out, "engine_serve");
  out << ",\"model\":{\"architecture\":\"" << model.architecture << "\",\"layers\":" << model.layers
      << ",\"hidden\":" << model.hidden << ",\"heads\":" << model.heads << ",\"kv_heads\":" << model.kv_heads
      << ",\"head_dim\":" << model.head_dim << ",\"mlp_hidden\":" << model.mlp_hidden << ",\"vocab\":" << model.vocab
      << ",\"tied_embeddings\":" << (model.tied_embeddings ? "true" : "false") << ",\"rope_theta\":" << model.rope_theta
      << ",\"qkv_bias\":" << (model.qkv_bias ? "true" : "false") << ",\"norm_eps\":" << model.norm_eps
      << ",\"weight_seed\":" << model.weight_seed << ",\"rope_scaling_factor\":" << model.rope_scaling_factor
      << ",\"qk_norm\":" << (model.qk_norm ? "true" : "false") << "}";
  out << ",\"engine\":{\"genome\":" << jobs::json_string(genome_text) << ",\"weights\":\""
      << precision_name(weights.precision) << "\",\"source\":\"" << (source_file.empty() ? "rendered" : "file")
      << "\",\"max_batch\":" << policy.max_batch << ",\"prefill_chunk\":" << policy.prefill_chunk << "}";
  // The physical limit beside every figure: the node's read bandwidth at the weights' working set, measured as the
  // harness's physical floor measures it (physical_floor.hpp), before and after serving with the larger kept (one
  // measurement on this VM ranged from 13.5 to 26.7 GB/s between invocations), and the weight bytes one decode step
  // reads at least.
  const double step_bytes = weight_bytes_per_step(model, weights.precision);
  const auto measure = [&] { return measure_read_bandwidth(static_cast<std::size_t>(step_bytes), usable_cpus()); };
  double bandwidth = measure();
  std::vector<ServedEngine> served_runs;
  for (const std::int64_t concurrency : concurrencies) {
    jobs::WorkloadSpec w = workload;
    w.concurrency = concurrency;
    const WorkloadTrace trace = make_trace(w, model.vocab);
    served_runs.push_back(
        serve_engine(compiled.artefact, scratch, jobs::EngineSpec{model, w}, weights, checker, trace, policy, runs));
  }
  bandwidth = std::max(bandwidth, measure());
  out << ",\"weight_bytes_per_step\":" << step_bytes << ",\"node_read_bandwidth_gbs\":" << bandwidth / 1e9
      << ",\"runs\":[";
  for (std::size_t i = 0; i < concurrencies.size(); ++i) {
    const ServedEngine& served = served_runs[i];
    const ServingResult& r = served.fastest;
    out << (i ? "," : "") << "{\"concurrency\":" << concurrencies[i]
        << ",\"max_logit_rel_error\":" << served.max_rel_error << ",\"checked_logit_rows\":" << served.checked_rows
        << ",\"output_tokens_per_s\":" << r.output_tokens_per_s << ",\"total_ms\":" << r.total_ms
        << ",\"steps\":" << r.steps << ",\"output_tokens\":" << r.output_tokens << ",\"ttft_p50_ms\":" << r.ttft_p50_ms
        << ",\"ttft_p99_ms\":" << r.ttft_p99_ms << ",\"itl_p50_ms\":" << r.itl_p50_ms
        << ",\"itl_p99_ms\":" << r.itl_p99_ms << ",\"decode_bandwidth_fraction\":"
        << (r.itl_p50_ms > 0 ? step_bytes / (r.itl_p50_ms * 1e-3) / bandwidth : 0.0) << ",\"op_share\":{";
    for (std::size_t o = 0; o < kOperators.size(); ++o)
      out << (o ? "," : "") << '"' << kOperators[o] << "\":" << r.op_share[o];
    out << "},\"outputs\":";
    write_tokens(out, r.outputs);
    out << "}";
  }
  out << "]";
  if (reference) {
    out << ",\"reference\":{\"outputs\":";
    write_tokens(out, reference_outputs(model, weights, base_trace, logits_out));
    out << "}";
  }
  out << "}\n";
  std::cout << out.str();
  fs::remove_all(scratch);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "engine_serve: " << e.what() << "\n";
  return 1;
}
