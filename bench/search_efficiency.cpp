// search_efficiency: how close a search strategy gets to the optimum of a fully measured GPU search space
// within fixed budgets of evaluations, against random search in the same run.
//   search_efficiency --cache FILE.json.gz --budgets 25,100,400 --repeats 50 [--strategy NAME] [--json]
// The measured spaces are in the repository (share/data/kernel-spaces), e.g. from its root:
//   build/bin/search_efficiency --budgets 25,100,400
//       --cache share/data/kernel-spaces/cache/convolution_milo-A100.json.gz
// Fraction of optimum = best time in the whole space / best time found (0 when nothing ran); every
// evaluation counts, failed ones included. Repeats use independent seeds (one stream per budget and repeat).
#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench_context.hpp"
#include "kforge/jobs/seed.hpp"
#include "kforge/kernels/replay_space.hpp"
#include "kforge/scheduler/strategy.hpp"

namespace po = boost::program_options;
using kforge::kernels::ReplayOutcome;
using kforge::kernels::ReplaySpace;
using kforge::scheduler::SearchStrategy;

namespace {

struct Settings {
  std::string cache;
  std::string strategy = "default";
  std::vector<int> budgets;
  int repeats = 50;
  std::uint64_t seed = 20240601;
  int threads = 0;
  bool json = false;
};

struct Figures {
  double mean = 0.0;
  double std = 0.0;
};

std::uint64_t mix(std::uint64_t z) { return kforge::jobs::splitmix64(z); }

std::vector<int> parse_budgets(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const int b = std::stoi(item);
    if (b <= 0) throw std::invalid_argument("--budgets: every budget must be positive, got " + item);
    out.push_back(b);
  }
  if (out.empty()) throw std::invalid_argument("--budgets: give at least one budget, e.g. 25,100,400");
  return out;
}

// One search of `budget` evaluations; returns the fraction of optimum it reached.
double run_once(const ReplaySpace& space, const std::string& strategy, int budget, std::uint64_t seed) {
  std::vector<kforge::scheduler::StrategyParameter> params;
  for (const auto& p : space.parameters()) params.push_back({p.name, p.values});
  kforge::scheduler::StrategyOptions options;
  options.seed = seed;
  options.budget_hint = budget;
  auto search = kforge::scheduler::make_strategy(strategy, std::move(params),
                                                 [&](const kforge::jobs::Genome& g) { return space.contains(g); },
                                                 options);
  double best = std::numeric_limits<double>::infinity();
  for (int spent = 0; spent < budget;) {
    const std::vector<kforge::jobs::Genome> batch = search->ask(1);
    if (batch.empty()) break;  // the whole space was evaluated
    for (const auto& g : batch) {
      const auto found = space.lookup(g);
      if (found.outcome == ReplayOutcome::not_in_space) {
        throw std::logic_error("strategy " + strategy + " asked for an invalid configuration " + g.to_text());
      }
      search->tell(g, found.time_ms);
      best = std::min(best, found.time_ms);
      ++spent;
    }
  }
  return std::isfinite(best) ? space.best_time_ms() / best : 0.0;
}

Figures measure(const ReplaySpace& space, const Settings& s, const std::string& strategy, int budget,
                std::uint64_t stream) {
  std::vector<double> fractions(static_cast<std::size_t>(s.repeats));
  const int threads = std::max(1, std::min(s.threads, s.repeats));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int r = t; r < s.repeats; r += threads) {
        const std::uint64_t seed = mix(s.seed ^ mix(stream ^ mix(static_cast<std::uint64_t>(budget) << 20 | r)));
        fractions[static_cast<std::size_t>(r)] = run_once(space, strategy, budget, seed);
      }
    });
  }
  for (auto& w : workers) w.join();
  Figures f;
  for (const double x : fractions) f.mean += x;
  f.mean /= s.repeats;
  for (const double x : fractions) f.std += (x - f.mean) * (x - f.mean);
  f.std = s.repeats > 1 ? std::sqrt(f.std / (s.repeats - 1)) : 0.0;
  return f;
}

std::string space_name(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (const std::string suffix : {".json.gz", ".json"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

bool parse_args(int argc, char** argv, Settings& s) {
  std::string budgets = "25,100,400";
  po::options_description desc("search_efficiency options");
  desc.add_options()("help,h", "this help")(
      "cache", po::value(&s.cache)->required(), "Kernel Tuner cache of a fully measured space (.json or .json.gz)")(
      "budgets", po::value(&budgets), "comma-separated evaluation budgets (default 25,100,400)")(
      "repeats", po::value(&s.repeats), "independent searches per budget (default 50)")(
      "strategy", po::value(&s.strategy), "strategy to measure (default: default)")(
      "seed", po::value(&s.seed), "base seed of the repeats")(
      "threads", po::value(&s.threads), "worker threads (default: all cores)")("json", "print JSON");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  if (vm.count("help")) {
    std::cout << desc << "\nknown strategies:";
    for (const auto& n : kforge::scheduler::strategy_names()) std::cout << ' ' << n;
    std::cout << '\n';
    return false;
  }
  po::notify(vm);
  s.json = vm.count("json") != 0;
  s.budgets = parse_budgets(budgets);
  if (s.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");
  if (s.threads <= 0) s.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return true;
}

}  // namespace

int main(int argc, char** argv) try {
  Settings s;
  if (!parse_args(argc, argv, s)) return 0;
  const ReplaySpace space = ReplaySpace::load(s.cache);
  kforge::scheduler::make_strategy(s.strategy, {{"x", {std::int64_t{0}}}}, {});  // reject unknown names early
  if (s.json) {
    std::cout << "{";
    kforge::bench::write_context_json(std::cout, "search_efficiency");
    std::cout << ",\"space\":" << json_string(space_name(s.cache)) << ",\"strategy\":" << json_string(s.strategy)
              << ",\"repeats\":" << s.repeats << ",\"budgets\":[";
  } else {
    std::printf("search_efficiency: %s (%zu configurations, %zu failed), strategy %s, %d repeats\n",
                space_name(s.cache).c_str(), space.entries().size(), space.failed_count(), s.strategy.c_str(),
                s.repeats);
    std::printf("  budget  fraction of optimum (mean +- std)   random search\n");
  }
  for (std::size_t i = 0; i < s.budgets.size(); ++i) {
    const int b = s.budgets[i];
    const Figures f = measure(space, s, s.strategy, b, 1);
    const Figures r = measure(space, s, "random", b, 2);
    if (s.json) {
      std::printf("%s{\"budget\":%d,\"mean_fraction\":%.4f,\"std\":%.4f,\"random_mean_fraction\":%.4f,"
                  "\"random_std\":%.4f}",
                  i ? "," : "", b, f.mean, f.std, r.mean, r.std);
      std::fflush(stdout);
    } else {
      std::printf("  %6d  %.3f +- %.3f                     %.3f +- %.3f\n", b, f.mean, f.std, r.mean, r.std);
    }
  }
  if (s.json) std::cout << "]}" << std::endl;
  return 0;
} catch (const std::exception& e) {
  std::cerr << "search_efficiency: " << e.what() << "\n";
  return 2;
}
