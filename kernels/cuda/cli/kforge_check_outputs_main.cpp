// kforge-check-outputs: kforge's verification applied to a kernel kforge did not run (docs/cli.md). First
// --write-inputs DIR: the cases a candidate of FAMILY is verified on, as raw input files and DIR/cases.json; the
// outside program writes each case's outputs; then --check DIR (same FAMILY, --problem and --seed) checks them
// with the family's reference and tolerance. Exit 0 inputs written / every case ok, 1 a case is wrong,
// 2 bad usage or a missing file.
#pragma GCC diagnostic ignored "-Wnull-dereference"  // Boost.Program_options under GCC 12 (kforge_eval_main.cpp)
#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <iostream>
#include <sstream>

#include "external_outputs.hpp"

namespace po = boost::program_options;
namespace kc = kforge::kernels::cuda;

namespace {

// "B=4,T=2048 H=32": commas or spaces between NAME=integer entries.
kc::Problem parse_problem(std::string text) {
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream in(text);
  kc::Problem p;
  for (std::string entry; in >> entry;) {
    const std::size_t eq = entry.find('=');
    std::int64_t value = 0;
    const char* last = entry.data() + entry.size();
    const bool named = eq != std::string::npos && eq > 0 && eq + 1 < entry.size();
    if (!named || std::from_chars(entry.data() + eq + 1, last, value).ptr != last)
      throw std::invalid_argument("--problem: '" + entry + "' is not NAME=integer (e.g. --problem B=4,T=2048,H=32)");
    p[entry.substr(0, eq)] = value;
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts(
      "Usage: kforge-check-outputs FAMILY [--problem K=V,...] [--seed N] (--write-inputs DIR | --check DIR)\n"
      "FAMILY: a cuda family (gemm, kda, kda_bf16, kda_bf16_tc, rmsnorm)\nOptions");
  opts.add_options()("help,h", "print this help and exit")("version", "print the version and exit")(
      "family", po::value<std::string>(), "the cuda family whose verification applies")(
      "problem", po::value<std::string>()->default_value(""), "main problem sizes, e.g. B=4,T=2048,H=32,varlen=1")(
      "seed", po::value<std::uint64_t>()->default_value(1), "seed of the inputs: the same for both steps")(
      "write-inputs", po::value<std::string>(), "write every case's inputs and DIR/cases.json")(
      "check", po::value<std::string>(), "check the outputs the outside program wrote into DIR");
  po::positional_options_description pos;
  pos.add("family", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "kforge-check-outputs: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << "kforge-check-outputs " KFORGE_VERSION "\n";
    return 0;
  }
  if (!vm.count("family") || vm.count("write-inputs") + vm.count("check") != 1) {
    std::cerr << "kforge-check-outputs: FAMILY and one of --write-inputs DIR, --check DIR are required\n" << opts;
    return 2;
  }
  try {
    const auto family = kc::make_cuda_family(vm["family"].as<std::string>());
    kforge::jobs::EvalSettings settings;
    for (const auto& [name, value] : parse_problem(vm["problem"].as<std::string>())) settings.problem[name] = value;
    const kc::Problem main = family->problem(settings);
    const std::uint64_t seed = vm["seed"].as<std::uint64_t>();
    const auto cases = kc::external_cases(*family, main, seed);
    if (vm.count("write-inputs")) {
      kc::write_external_inputs(*family, cases, seed, vm["write-inputs"].as<std::string>());
      std::cout << "kforge-check-outputs: " << cases.size() << " cases of " << family->name() << " ("
                << kc::problem_text(main) << ") in " << vm["write-inputs"].as<std::string>() << "/cases.json\n";
      return 0;
    }
    return kc::check_external_outputs(*family, cases, vm["check"].as<std::string>(), std::cout) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "kforge-check-outputs: " << e.what() << "\n";
    return 2;
  }
}
