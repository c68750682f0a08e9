// kforge-eval: evaluates one task manifest under MPI and writes its shard (ARCHITECTURE.md, mpi_eval/).
// Exit codes (kforge/jobs/exit_codes.hpp): 0 shard written; 2 bad usage or manifest; 3 infrastructure error. A
// candidate's failure is a record in the shard, never an exit code.
#include <mpi.h>
#include <sched.h>

// Boost.Program_options' typed_value<std::string>::notify trips GCC 12's -Wnull-dereference after inlining
// (an any_cast the compiler cannot prove non-null); the warning is about Boost, not this file.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_share.hpp"
#include "evaluator.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/kernels/openblas_kernels.hpp"

namespace po = boost::program_options;
using namespace kforge;

namespace {

struct Parsed {
  std::optional<mpi_eval::EvaluatorOptions> options;  // empty: exit with `code`
  int code = 0;
  std::string message;  // for rank 0 to print
};

Parsed parse_command_line(int argc, char** argv) {
  po::options_description visible(
      "Usage: kforge-eval --manifest PATH [--scratch DIR] [--keep-scratch] | --version | --help\nOptions");
  visible.add_options()("help,h", "print this help and exit")("version", "print the version and exit")(
      "manifest", po::value<std::string>(), "task manifest (YAML) to evaluate; the shard goes where it says")(
      "scratch", po::value<std::string>(), "folder for per-candidate scratch space (default: system temp)")(
      "keep-scratch", "keep the scratch folders (sources, objects, files candidates wrote)");
  std::ostringstream help;
  help << visible;
  Parsed p;
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(visible).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Parsed{std::nullopt, jobs::exit_code::kUsage, std::string("kforge-eval: ") + e.what() + "\n" + help.str()};
  }
  if (vm.count("help")) return Parsed{std::nullopt, 0, help.str()};
  if (vm.count("version")) return Parsed{std::nullopt, 0, "kforge-eval " KFORGE_VERSION "\n"};
  if (!vm.count("manifest")) {
    return Parsed{std::nullopt, jobs::exit_code::kUsage, "kforge-eval: --manifest PATH is required\n" + help.str()};
  }
  mpi_eval::EvaluatorOptions o;
  o.manifest_path = vm["manifest"].as<std::string>();
  if (vm.count("scratch")) o.scratch = vm["scratch"].as<std::string>();
  o.keep_scratch = vm.count("keep-scratch") != 0;
  o.version = KFORGE_VERSION;
  p.options = o;
  return p;
}

// Every rank reads the manifest; all agree on failure, so no rank waits for one that gave up.
std::optional<jobs::TaskManifest> load_manifest(const std::filesystem::path& path, std::string& error) {
  std::optional<jobs::TaskManifest> m;
  try {
    m = jobs::read_manifest(path);
    kernels::make_backend(m->backend, m->family);  // an unknown pair is a manifest error
  } catch (const std::exception& e) {
    error = std::string("kforge-eval: ") + e.what();
    m.reset();
  }
  int ok = m.has_value(), all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!all_ok && error.empty() && rank == 0) error = "kforge-eval: another rank could not read " + path.string();
  return all_ok ? m : std::nullopt;
}

int finish(int code) {
  MPI_Finalize();
  return code;
}

// KFORGE_CPUS_PER_RANK, for the candidates' children this rank forks: its share of the node's CPUs (cpu_share.hpp),
// unless already set (a site's environment). The cuda backend's double reference runs on that many threads.
void share_node_cpus(int rank) {
  if (const char* set = std::getenv("KFORGE_CPUS_PER_RANK"); set != nullptr && *set != '\0') return;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (::sched_getaffinity(0, sizeof mine, &mine) != 0) return;
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS) return;
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  std::vector<cpu_set_t> masks(static_cast<std::size_t>(on_node));
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, masks.data(), sizeof mine, MPI_BYTE, node);
  MPI_Comm_free(&node);
  ::setenv("KFORGE_CPUS_PER_RANK", std::to_string(mpi_eval::cpu_share(mine, masks)).c_str(), 1);
}

}  // namespace

int main(int argc, char** argv) {
  kernels::use_openblas_kernels_for_this_cpu(argv);  // before MPI: it may execute this program again
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  share_node_cpus(rank);
  Parsed parsed = parse_command_line(argc, argv);
  if (!parsed.options) {
    if (rank == 0) (parsed.code == 0 ? std::cout : std::cerr) << parsed.message << std::flush;
    return finish(parsed.code);
  }
  std::string error;
  const auto manifest = load_manifest(parsed.options->manifest_path, error);
  if (!manifest) {
    if (!error.empty()) std::fprintf(stderr, "[rank %d] %s\n", rank, error.c_str());
    return finish(jobs::exit_code::kUsage);
  }
  // Rank 0 evaluates on a helper thread while its main thread serves MPI requests (needs FUNNELED).
  parsed.options->rank0_evaluates = provided >= MPI_THREAD_FUNNELED;
  try {
    return finish(mpi_eval::run_evaluator(*parsed.options, *manifest));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[rank %d] kforge-eval: infrastructure error: %s\n", rank, e.what());
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, jobs::exit_code::kInfrastructure);  // other ranks may wait on this one
    return finish(jobs::exit_code::kInfrastructure);
  }
}
