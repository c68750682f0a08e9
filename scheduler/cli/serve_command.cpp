// `kforge serve DIR`: the campaign's best verified engine behind an OpenAI-compatible API (docs/serving.md). This
// command only chooses the engine from the archive; kforge-serve, beside kforge, compiles, verifies and serves it
// (nothing in scheduler/ compiles or runs a candidate). The engine's exact source reaches kforge-serve through a
// memory file, so nothing is written to the campaign directory or anywhere else.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "command_table.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/scheduler/report/served_engine.hpp"

namespace kforge::cli {
namespace fs = std::filesystem;

namespace {

// The options that choose the engine; every other option of this command is kforge-serve's, passed on unchanged
// (kforge-serve --help explains each).
const std::set<std::string> kChoosing = {"dir", "precision", "candidate", "model"};

void serve_options(po::options_description& options) {
  options.add_options()("dir", po::value<std::string>()->required(), "engine campaign directory")(
      "precision", po::value<std::string>(), "serve the best engine with these weights (fp32, bf16, int8)")(
      "candidate", po::value<std::string>(), "serve this candidate id instead of the best")(
      "model", po::value<std::string>(), "serve this model folder (default: the one the campaign served)")(
      "host", po::value<std::string>(), "address to listen on (default 127.0.0.1)")(
      "port", po::value<std::string>(), "port (default 8000; 0: any free one, printed)")(
      "served-model-name", po::value<std::string>(), "the model name clients ask for (default: the folder's)")(
      "max-context", po::value<std::string>(), "prompt + output tokens per request (default 2048)")(
      "max-tokens", po::value<std::string>(), "most tokens a request may ask for (default: the context less one)")(
      "slots", po::value<std::string>(), "requests in the engine at once (default: the genome's max_batch)")(
      "max-queue", po::value<std::string>(), "requests waiting for a slot; more get 429 (default 256)")(
      "max-connections", po::value<std::string>(), "open connections; more get 503 (default 1024)");
}

fs::path serve_program() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside = self.parent_path() / "kforge-serve";
  if (ec || !fs::exists(beside))
    throw std::runtime_error("kforge-serve not found beside " + self.string() + " (build or install it with kforge)");
  return beside;
}

int serve(const po::variables_map& options) {
  const scheduler::CampaignDir dir(options["dir"].as<std::string>());
  const scheduler::ServedEngineChoice c = scheduler::choose_served_engine(dir, string_or_empty(options, "precision"),
                                                                          string_or_empty(options, "candidate"));
  const std::string model = options.count("model") ? options["model"].as<std::string>() : c.model_path;
  std::cerr << "kforge serve: candidate " << c.candidate_id << " of generation " << c.generation << " (weights "
            << c.precision << ", " << c.ms_per_token << " ms per output token in the campaign) on " << model << "\n";

  const int fd = ::memfd_create("kforge-engine-source", 0);  // inherited by kforge-serve: no MFD_CLOEXEC
  if (fd < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  for (std::size_t done = 0; done < c.source.size();) {
    const ssize_t n = ::write(fd, c.source.data() + done, c.source.size() - done);
    if (n < 0) throw std::runtime_error(std::string("writing the engine source: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  const fs::path program = serve_program();
  std::vector<std::string> args = {
      program.string(), "--model", model, "--genome", c.params, "--source", "/proc/self/fd/" + std::to_string(fd)};
  for (const auto& [name, value] : options)
    if (!kChoosing.contains(name)) args.insert(args.end(), {"--" + name, value.as<std::string>()});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  throw std::runtime_error("cannot run " + program.string() + ": " + std::strerror(errno));
}

}  // namespace

const Command kServeCommand{"serve",
                            "DIR [--precision P] [--port N] [...]",
                            "serve the campaign's best engine over an OpenAI-compatible API",
                            "kforge serve DIR",
                            "dir",
                            serve_options,
                            serve};

}  // namespace kforge::cli
