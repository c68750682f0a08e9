// kforge-serve: one kforge engine behind an OpenAI-compatible HTTP API (docs/serving.md). `kforge serve` finds the
// engine in a campaign's archive and runs this program with it; it can also be run directly with a genome or an
// engine source. The engine is compiled, verified against the double reference as a campaign verifies it (an engine
// that fails is never served), and then runs in a confined candidate process of its own (docs/isolation.md).
#include <pthread.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/engine_call.hpp"
#include "engine/engine_template.hpp"
#include "kforge/engine/model_folder.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/served_checks.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/kernels/openblas_kernels.hpp"
#include "kforge/serve/http_server.hpp"
#include "sandbox/cxx_compile.hpp"

namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace kforge;
using namespace kforge::kernels::engine;

namespace {

struct Options {
  std::string model_dir, genome_text, source_file, served_name;
  serve::ServerOptions server;
  std::int64_t max_context = 2048, max_prompt_tokens = 0, max_tokens = 0, slots = 0, max_queue = 256;
  int port = 8000;
  int read_timeout_s = 30, write_timeout_s = 60;
};

// config.json's eos_token_id (a number or a list) and max_position_embeddings (0 when absent).
void read_generation_config(const fs::path& dir, std::vector<std::int32_t>& eos, std::int64_t& max_positions) {
  std::ifstream in(dir / "config.json");
  const nlohmann::json cfg = nlohmann::json::parse(in, nullptr, false);
  if (cfg.is_discarded()) return;  // model_from_folder already refused an unreadable config.json
  if (const auto it = cfg.find("eos_token_id"); it != cfg.end()) {
    if (it->is_number_integer()) eos.push_back(it->get<std::int32_t>());
    if (it->is_array())
      for (const auto& e : *it)
        if (e.is_number_integer()) eos.push_back(e.get<std::int32_t>());
  }
  max_positions = cfg.value("max_position_embeddings", std::int64_t{0});
}

std::string engine_source(const Options& o, const jobs::Genome& genome) {
  if (o.source_file.empty()) return render_engine_source(engine_params_from_genome(genome));
  std::ifstream in(o.source_file);
  if (!in) throw std::runtime_error("cannot read --source " + o.source_file);
  std::string source(std::istreambuf_iterator<char>(in), {});
  if (source.empty()) throw std::runtime_error("--source " + o.source_file + " is empty");
  return source;
}

// The engine verified as a campaign verifies it: the script traces and the serving envelope against the double
// reference, in a process of its own that is discarded afterwards.
void verify_engine(const fs::path& artefact, const fs::path& scratch, const jobs::ModelSpec& model, Weights& weights,
                   const BatchPolicy& policy) {
  jobs::WorkloadSpec w;
  w.requests = 8;
  w.prompt_min = 16;
  w.prompt_max = 64;
  w.output_min = 8;
  w.output_max = 24;
  w.concurrency = policy.max_batch;
  const jobs::EngineSpec e{model, w};
  auto process = engine_process_in(artefact, scratch / "verify");
  init_engine(*process, model, weights, engine_sizes_for(e, policy));
  const ReferenceEngine reference(model, weights, 1, 1);
  const jobs::EvalSettings settings;
  const auto v = verify_served_engine(settings, e, policy, weights, reference, harness_secret(),
                                      step_through(*process, model.vocab));
  if (v.status != jobs::Status::ok)
    throw std::runtime_error("the engine fails verification, so it is not served: " + v.evidence);
  std::cerr << "kforge serve: the engine is verified (logits within " << v.max_rel_error
            << " of the double reference)\n";
}

int serve_main(const Options& o) {
  const fs::path dir = fs::absolute(o.model_dir).lexically_normal();
  const jobs::ModelSpec model = model_from_folder(dir);
  check_model(model);
  std::vector<std::int32_t> eos;
  std::int64_t max_positions = 0;
  read_generation_config(dir, eos, max_positions);
  std::unique_ptr<serve::Tokenizer> tokenizer;
  if (fs::exists(dir / "tokenizer.json")) tokenizer = serve::Tokenizer::load(dir / "tokenizer.json");

  jobs::Candidate candidate;
  candidate.family = "engine";
  candidate.backend = "host";
  candidate.genome = jobs::Genome::from_text(o.genome_text);
  const BatchPolicy policy = batch_policy_from_genome(candidate.genome);
  Weights weights = load_weights(model);
  round_weights(weights, weights_from_genome(candidate.genome));

  const fs::path scratch = fs::temp_directory_path() / ("kforge-serve-" + std::to_string(::getpid()));
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{scratch};
  jobs::EvalSettings settings;
  const kernels::EvalContext ctx{&settings, scratch, 1, ""};
  const kernels::CompileResult compiled =
      kernels::host::compile_shared_object(engine_source(o, candidate.genome), candidate, ctx, "kforge-serve");
  if (!compiled.ok) throw std::runtime_error("the engine does not compile:\n" + compiled.log);
  verify_engine(compiled.artefact, scratch, model, weights, policy);

  std::int64_t context = o.max_context;
  if (max_positions > 0) context = std::min(context, max_positions);
  const std::int64_t slots = o.slots > 0 ? o.slots : policy.max_batch;
  const EngineSizes sizes{slots, context, policy.max_batch, most_step_tokens(policy)};
  int generation = 0;
  // The batcher drops a step function before it asks for a fresh one, and the process outlives the batcher.
  std::unique_ptr<kernels::host::CandidateProcess> process;
  const auto fresh_engine = [&]() -> StepFn {
    process.reset();  // the old process and its folder go before the new one starts
    process = engine_process_in(compiled.artefact, scratch / ("engine-" + std::to_string(generation++)));
    init_engine(*process, model, weights, sizes);
    return step_through(*process, model.vocab);
  };

  serve::Metrics metrics;
  serve::Batcher batcher(fresh_engine, policy, model.vocab, {slots, o.max_queue, context}, metrics);
  serve::ServedModel served;
  served.name = o.served_name.empty() ? dir.filename().string() : o.served_name;
  served.created = static_cast<std::int64_t>(std::time(nullptr));
  served.eos = eos;
  served.tokenizer = tokenizer.get();
  served.limits = {served.name,
                   model.vocab,
                   context,
                   o.max_prompt_tokens > 0 ? std::min(o.max_prompt_tokens, context - 1) : context - 1,
                   o.max_tokens > 0 ? std::min(o.max_tokens, context - 1) : context - 1,
                   tokenizer.get()};
  serve::ServerOptions server_options = o.server;
  server_options.port = static_cast<unsigned short>(o.port);
  server_options.read_timeout = std::chrono::seconds(o.read_timeout_s);
  server_options.write_timeout = std::chrono::seconds(o.write_timeout_s);
  serve::HttpServer server(server_options, served, batcher, metrics);

  // SIGINT and SIGTERM end the server through a thread that waits for them (no work in a signal handler).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  std::exception_ptr engine_error;
  std::thread engine_thread([&] {
    try {
      batcher.run();
    } catch (...) {
      engine_error = std::current_exception();
      server.stop();
    }
  });
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig == SIGTERM || sig == SIGINT) std::cerr << "kforge serve: stopping (signal " << sig << ")\n";
    server.stop();
    batcher.stop();
  });
  std::cout << "kforge serve: " << served.name << " on http://" << o.server.host << ":" << server.port() << " (weights "
            << precision_name(weights.precision) << ", max_batch " << policy.max_batch << ", " << slots
            << " slots, context " << context << ", tokenizer " << (tokenizer ? "yes" : "none") << ")" << std::endl;
  server.run();
  batcher.stop();
  engine_thread.join();
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  if (engine_error) std::rethrow_exception(engine_error);
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  kernels::use_openblas_kernels_for_this_cpu(argv);  // the reference's verification at the CPU's speed
  Options o;
  po::options_description opts("kforge-serve --model DIR --genome TEXT [options] (docs/serving.md)");
  opts.add_options()("help", "this text")("version", "print the version")("model", po::value(&o.model_dir)->required(),
                                                                          "a Hugging Face model folder")(
      "genome", po::value(&o.genome_text)->required(), "the engine's genome (canonical text K=V;K=\"s\")")(
      "source", po::value(&o.source_file), "the engine's source file instead of the genome's rendering")(
      "served-model-name", po::value(&o.served_name), "the name clients ask for (default: the folder's name)")(
      "host", po::value(&o.server.host)->default_value("127.0.0.1"), "address to listen on")(
      "port", po::value(&o.port)->default_value(8000), "port (0: any free one, printed)")(
      "max-context", po::value(&o.max_context)->default_value(2048), "prompt + output tokens per request")(
      "max-prompt-tokens", po::value(&o.max_prompt_tokens)->default_value(0), "0: the context less one")(
      "max-tokens", po::value(&o.max_tokens)->default_value(0),
      "most tokens a request may ask for; 0: the context less one")(
      "slots", po::value(&o.slots)->default_value(0), "requests in the engine at once; 0: the genome's max_batch")(
      "max-queue", po::value(&o.max_queue)->default_value(256), "requests waiting for a slot; more get 429")(
      "max-connections", po::value(&o.server.max_connections)->default_value(1024), "more get 503")(
      "max-body-bytes", po::value(&o.server.max_body_bytes)->default_value(1 << 20), "larger bodies get 413")(
      "read-timeout", po::value(&o.read_timeout_s)->default_value(30), "seconds a request may take to arrive")(
      "write-timeout", po::value(&o.write_timeout_s)->default_value(60), "seconds a client may take to read");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, opts), vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "kforge-serve " KFORGE_VERSION "\n";
    return 0;
  }
  po::notify(vm);
  if (o.port < 0 || o.port > 65535) throw po::error("--port must be in [0, 65535]");
  if (o.max_context < 2 || o.max_queue < 0 || o.slots < 0 || o.server.max_connections < 1)
    throw po::error("--max-context must be at least 2, --max-connections at least 1, --slots and --max-queue >= 0");
  return serve_main(o);
} catch (const po::error& e) {
  std::cerr << "kforge serve: " << e.what() << " (see --help)\n";
  return 2;
} catch (const std::exception& e) {
  std::cerr << "kforge serve: " << e.what() << "\n";
  return 1;
}
