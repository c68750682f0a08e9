// kforge-cuda-figures: the compile stage of every genome of a cuda family's space, on each target, with ptxas's
// figures (docs/cli.md). No GPU needed: it is what a compile-only campaign records for each candidate, for the whole
// space at once, so a template's register pressure, spills and shared memory are known before any GPU time. Exit 0
// when every genome compiled or was rejected for its resources (a launch the target cannot run, spills), 1 when one
// failed to compile (the template is broken for it), 2 bad usage.
#pragma GCC diagnostic ignored "-Wnull-dereference"  // Boost.Program_options under GCC 12 (kforge_eval_main.cpp)
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "cuda_backend.hpp"
#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/status.hpp"

namespace po = boost::program_options;
namespace kc = kforge::kernels::cuda;
namespace jobs = kforge::jobs;

namespace {

struct Tally {
  int ok = 0, resource_reject = 0, compile_error = 0, spilling = 0;
  std::int64_t min_registers = 0, max_registers = 0, max_shared = 0;
  void add(const kforge::kernels::CompileResult& r) {
    if (r.ok) {
      const std::int64_t regs = r.resources.registers;
      min_registers = ok == 0 ? regs : std::min(min_registers, regs);
      max_registers = std::max(max_registers, regs);
      max_shared = std::max(max_shared, r.resources.shared_bytes);
      ++ok;
    }
    spilling += r.resources.spill_bytes > 0;
    resource_reject += r.status == jobs::Status::resource_reject;
    compile_error += !r.ok && r.status == jobs::Status::compile_error;
  }
};

// The first line of a rejection's reason (the log's last non-empty line is ptxas's or the check's).
std::string reason(const std::string& log) {
  std::string last, line;
  for (char ch : log + "\n") {
    if (ch != '\n') {
      line += ch;
      continue;
    }
    if (!line.empty()) last = line;
    line.clear();
  }
  return last;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts(
      "Usage: kforge-cuda-figures FAMILY [--targets hopper,blackwell] [--cache DIR]\n"
      "FAMILY: a cuda family (gemm, kda, kda_bf16, kda_bf16_tc, rmsnorm)\nOptions");
  opts.add_options()("help,h", "print this help and exit")("version", "print the version and exit")(
      "family", po::value<std::string>(), "the cuda family")(
      "targets", po::value<std::string>()->default_value("hopper,blackwell"), "the targets, comma-separated")(
      "cache", po::value<std::string>(), "compile cache (default: $KFORGE_CUDA_CACHE, else ~/.cache/kforge/cuda)");
  po::positional_options_description pos;
  pos.add("family", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "kforge-cuda-figures: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "kforge-cuda-figures " KFORGE_VERSION "\n";
    return 0;
  }
  if (!vm.count("family")) {
    std::cerr << "kforge-cuda-figures: FAMILY is required\n" << opts;
    return 2;
  }
  try {
    const std::filesystem::path scratch =
        std::filesystem::temp_directory_path() / ("kforge-cuda-figures-" + std::to_string(getpid()));
    std::filesystem::create_directories(scratch);
    kc::CudaBackend backend(kc::make_cuda_family(vm["family"].as<std::string>()),
                            kc::CudaBackendOptions{vm.count("cache") ? vm["cache"].as<std::string>() : "", 0});
    jobs::EvalSettings settings;
    settings.compile_flags = "";
    settings.compile_timeout_s = 120;
    std::vector<std::string> targets;
    std::string targets_text = vm["targets"].as<std::string>() + ",";
    for (std::size_t at; (at = targets_text.find(',')) != std::string::npos; targets_text.erase(0, at + 1))
      if (at > 0) targets.push_back(targets_text.substr(0, at));
    for (const std::string& t : targets) (void)kc::arch_for_target(t);  // an unknown target fails before compiling
    const auto genomes = kc::every_genome(backend.cuda_family().space());
    std::printf("%-10s %-44s %-16s %9s %12s %10s %10s\n", "target", "genome", "status", "registers", "shared_bytes",
                "spill_bytes", "compile_ms");
    std::map<std::string, Tally> tallies;
    for (const std::string& target : targets)
      for (const jobs::Genome& g : genomes) {
        jobs::Candidate c;
        c.family = backend.family();
        c.backend = "cuda";
        c.genome = g;
        jobs::assign_id(c);
        const kforge::kernels::CompileResult r =
            backend.compile(backend.render(c), c, kforge::kernels::EvalContext{&settings, scratch, 42, target});
        tallies[target].add(r);
        std::printf("%-10s %-44s %-16s %9lld %12lld %10lld %10.0f%s\n", target.c_str(), g.to_text().c_str(),
                    std::string(jobs::to_string(r.status)).c_str(), static_cast<long long>(r.resources.registers),
                    static_cast<long long>(r.resources.shared_bytes), static_cast<long long>(r.resources.spill_bytes),
                    r.compile_ms, r.ok ? "" : ("  " + reason(r.log)).c_str());
        std::fflush(stdout);
      }
    std::filesystem::remove_all(scratch);
    int broken = 0;
    for (const auto& [target, t] : tallies) {
      std::printf(
          "%s: %zu genomes: %d compiled (registers %lld..%lld, shared memory up to %lld B), %d rejected for "
          "resources, %d spilling, %d compile errors\n",
          target.c_str(), genomes.size(), t.ok, static_cast<long long>(t.min_registers),
          static_cast<long long>(t.max_registers), static_cast<long long>(t.max_shared), t.resource_reject, t.spilling,
          t.compile_error);
      broken += t.compile_error;
    }
    return broken > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "kforge-cuda-figures: " << e.what() << "\n";
    return 2;
  }
}
