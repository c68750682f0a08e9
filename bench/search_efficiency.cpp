// search_efficiency: how close search strategies get to the optimum of fully measured GPU search spaces
// within fixed budgets of evaluations, against random search in the same run, per space and on average.
//   search_efficiency --cache FILE.json.gz... [--strategy NAME,...] [--budgets 25,100,400] [--repeats 50]
//                     [--prior FILE.json.gz...] [--inverted-prior] [--json]
// The measured spaces are in the repository (share/data/kernel-spaces), e.g. from its root:
//   build/bin/search_efficiency --budgets 25,100,400
//       --cache share/data/kernel-spaces/cache/convolution_milo-A100.json.gz
// Fraction of optimum = best time in the whole space / best time found (0 when nothing ran); every
// evaluation counts, failed ones included. Repeats use independent seeds (one stream per budget and repeat),
// the same seeds for every strategy, so two strategies' figures are a paired comparison.
// --prior: Kernel Tuner caches measured elsewhere (another GPU of the same kernel). Each space gets as prior
// every one of them with the same parameters that is not the space's own file, and each strategy is run cold
// and warm ("+prior") in the same run. --inverted-prior adds a run with those priors' ranking reversed (the
// fastest taken for the slowest): a misleading prior, which must not make a search much worse than cold.
#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench_context.hpp"
#include "kforge/jobs/json_text.hpp"
#include "kforge/jobs/seed.hpp"
#include "kforge/kernels/replay_space.hpp"
#include "kforge/scheduler/search/strategy.hpp"

namespace po = boost::program_options;
using kforge::jobs::json_string;
using kforge::kernels::ReplayOutcome;
using kforge::kernels::ReplaySpace;
using kforge::scheduler::PriorObservations;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Settings {
  std::vector<std::string> caches;
  std::vector<std::string> priors;
  std::vector<std::string> strategies;
  std::vector<int> budgets;
  int repeats = 50;
  std::uint64_t seed = 20240601;
  int threads = 0;
  bool inverted = false;
  bool json = false;
};

struct Space {
  std::string name;
  ReplaySpace replay;
  std::vector<PriorObservations> prior;     // the other caches of the same parameters
  std::vector<PriorObservations> inverted;  // the same with their ranking reversed
  std::size_t prior_entries = 0;
};

struct Figures {
  double mean = 0.0;
  double std = 0.0;
  double model = kNaN;  // mean over repeats of the model's final rank correlation (NaN: no model, or too few)
  double se(int repeats) const { return std / std::sqrt(static_cast<double>(repeats)); }
};

struct Once {
  double fraction = 0.0;
  double model = kNaN;
};

struct Row {  // one strategy in one prior mode
  std::string strategy;
  std::string mode;  // "", "+prior", "+inverted prior"
};

std::uint64_t mix(std::uint64_t z) { return kforge::jobs::splitmix64(z); }

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::vector<int> parse_budgets(const std::string& text) {
  std::vector<int> out;
  for (const std::string& item : split(text)) {
    const int b = std::stoi(item);
    if (b <= 0) throw std::invalid_argument("--budgets: every budget must be positive, got " + item);
    out.push_back(b);
  }
  if (out.empty()) throw std::invalid_argument("--budgets: give at least one budget, e.g. 25,100,400");
  return out;
}

std::string space_name(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (const std::string suffix : {".json.gz", ".json"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

std::vector<std::string> parameter_names(const ReplaySpace& s) {
  std::vector<std::string> names;
  for (const auto& p : s.parameters()) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  return names;
}

PriorObservations observations(const ReplaySpace& s, bool invert) {
  PriorObservations prior{s.path().string(), {}};
  for (const auto& e : s.entries()) {
    const bool ok = e.outcome == ReplayOutcome::measured;
    prior.measured.emplace_back(e.genome,
                                ok ? (invert ? 1.0 / e.time_ms : e.time_ms) : std::numeric_limits<double>::infinity());
  }
  return prior;
}

// One search of `budget` evaluations: the fraction of optimum it reached and how well its model predicted.
Once run_once(const Space& space, const std::string& strategy, const std::vector<PriorObservations>* prior, int budget,
              std::uint64_t seed) {
  std::vector<kforge::scheduler::StrategyParameter> params;
  for (const auto& p : space.replay.parameters()) params.push_back({p.name, p.values});
  kforge::scheduler::StrategyOptions options;
  options.seed = seed;
  options.budget_hint = budget;
  if (prior) options.prior = *prior;
  auto search = kforge::scheduler::make_strategy(
      strategy, std::move(params), [&](const kforge::jobs::Genome& g) { return space.replay.contains(g); }, options);
  double best = std::numeric_limits<double>::infinity();
  for (int spent = 0; spent < budget;) {
    const std::vector<kforge::jobs::Genome> batch = search->ask(1);
    if (batch.empty()) break;  // the whole space was evaluated
    for (const auto& g : batch) {
      const auto found = space.replay.lookup(g);
      if (found.outcome == ReplayOutcome::not_in_space) {
        throw std::logic_error("strategy " + strategy + " asked for an invalid configuration " + g.to_text());
      }
      search->tell(g, found.time_ms);
      best = std::min(best, found.time_ms);
      ++spent;
    }
  }
  return {std::isfinite(best) ? space.replay.best_time_ms() / best : 0.0, search->model_quality().rank_correlation};
}

Figures measure(const Space& space, const Settings& s, const Row& row, int budget) {
  const std::vector<PriorObservations>* prior = row.mode == "+prior"            ? &space.prior
                                                : row.mode == "+inverted prior" ? &space.inverted
                                                                                : nullptr;
  const std::uint64_t stream = row.strategy == "random" ? 2 : 1;
  std::vector<Once> runs(static_cast<std::size_t>(s.repeats));
  const int threads = std::max(1, std::min(s.threads, s.repeats));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int r = t; r < s.repeats; r += threads) {
        const std::uint64_t seed = mix(s.seed ^ mix(stream ^ mix(static_cast<std::uint64_t>(budget) << 20 | r)));
        runs[static_cast<std::size_t>(r)] = run_once(space, row.strategy, prior, budget, seed);
      }
    });
  }
  for (auto& w : workers) w.join();
  Figures f;
  double model_sum = 0.0;
  int models = 0;
  for (const Once& x : runs) {
    f.mean += x.fraction;
    if (std::isfinite(x.model)) model_sum += x.model, ++models;
  }
  f.mean /= s.repeats;
  for (const Once& x : runs) f.std += (x.fraction - f.mean) * (x.fraction - f.mean);
  f.std = s.repeats > 1 ? std::sqrt(f.std / (s.repeats - 1)) : 0.0;
  if (models > 0) f.model = model_sum / models;
  return f;
}

std::vector<Space> load_spaces(const Settings& s) {
  std::vector<Space> spaces;
  std::vector<ReplaySpace> priors;
  for (const std::string& p : s.priors) priors.push_back(ReplaySpace::load(p));
  for (const std::string& c : s.caches) {
    Space space{space_name(c), ReplaySpace::load(c), {}, {}, 0};
    for (const ReplaySpace& p : priors) {
      if (std::filesystem::equivalent(p.path(), space.replay.path())) continue;  // never its own prior
      if (parameter_names(p) != parameter_names(space.replay)) continue;         // another kernel's space
      space.prior.push_back(observations(p, false));
      space.inverted.push_back(observations(p, true));
      space.prior_entries += p.entries().size();
    }
    spaces.push_back(std::move(space));
  }
  return spaces;
}

bool parse_args(int argc, char** argv, Settings& s) {
  std::string budgets = "25,100,400", strategies = "default";
  po::options_description desc("search_efficiency options");
  desc.add_options()("help,h", "this help")(
      "cache", po::value(&s.caches)->multitoken()->required(),
      "Kernel Tuner caches of fully measured spaces (.json or .json.gz), one or more")(
      "budgets", po::value(&budgets), "comma-separated evaluation budgets (default 25,100,400)")(
      "repeats", po::value(&s.repeats), "independent searches per budget (default 50)")(
      "strategy", po::value(&strategies), "comma-separated strategies to measure (default: default)")(
      "prior", po::value(&s.priors)->multitoken(),
      "caches measured elsewhere: each strategy also runs warm-started from those of the same parameters")(
      "inverted-prior", "also run with the priors' ranking reversed (a misleading prior)")("seed", po::value(&s.seed),
                                                                                           "base seed of the repeats")(
      "threads", po::value(&s.threads), "worker threads (default: all cores)")("json", "print JSON");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  if (vm.count("help")) {
    std::cout << desc << "\nknown strategies:";
    for (const auto& n : kforge::scheduler::strategy_names()) std::cout << ' ' << n;
    std::cout << "\n(and gp+KNOB+... combinations: see scheduler/search/src/strategy.cpp)\n";
    return false;
  }
  po::notify(vm);
  s.json = vm.count("json") != 0;
  s.inverted = vm.count("inverted-prior") != 0;
  s.budgets = parse_budgets(budgets);
  s.strategies = split(strategies);
  if (s.strategies.empty()) throw std::invalid_argument("--strategy: give at least one strategy");
  if (s.inverted && s.priors.empty()) throw std::invalid_argument("--inverted-prior needs --prior FILE...");
  if (s.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");
  if (s.threads <= 0) s.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return true;
}

std::vector<Row> rows_of(const Settings& s) {
  std::vector<Row> rows;
  for (const std::string& name : s.strategies) {
    rows.push_back({name, ""});
    if (!s.priors.empty() && name != "random") rows.push_back({name, "+prior"});
    if (s.inverted && name != "random") rows.push_back({name, "+inverted prior"});
  }
  if (std::find(s.strategies.begin(), s.strategies.end(), "random") == s.strategies.end()) {
    rows.push_back({"random", ""});
  }
  return rows;
}

void print_json_result(bool first, int budget, const Row& row, const std::string& space, const Figures& f,
                       int repeats) {
  std::printf(
      "%s{\"budget\":%d,\"strategy\":%s,\"prior\":%s,\"space\":%s,\"mean_fraction\":%.4f,\"std\":%.4f,"
      "\"se\":%.4f,\"model_rank_correlation\":%s}",
      first ? "" : ",", budget, json_string(row.strategy).c_str(),
      json_string(row.mode.empty() ? "none" : row.mode.substr(1)).c_str(), json_string(space).c_str(), f.mean, f.std,
      f.se(repeats), std::isfinite(f.model) ? std::to_string(f.model).c_str() : "null");
  std::fflush(stdout);
}

// A strategy's row of fractions, then (not for random itself) its margin over random search in standard errors
// of the difference (each mean's own, combined) and its model's mean rank correlation.
void print_rows(const Row& row, const std::vector<Figures>& f, const std::vector<Figures>& random, int repeats) {
  double sum = 0.0;
  std::printf("            %-26s", (row.strategy + (row.mode.empty() ? "" : " " + row.mode)).c_str());
  for (const Figures& x : f) std::printf(" %.3f", x.mean), sum += x.mean;
  std::printf("  %.3f\n", sum / static_cast<double>(f.size()));
  if (row.strategy == "random") return;
  int above = 0;
  std::printf("              vs random, SE %-12s", "");
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double se = std::hypot(f[i].se(repeats), random[i].se(repeats));
    const double margin = se > 0 ? (f[i].mean - random[i].mean) / se : 0.0;
    above += margin > 2.0;
    std::printf(" %+5.1f", margin);
  }
  std::printf("  %zu of %zu above by > 2 SE\n", static_cast<std::size_t>(above), f.size());
  std::printf("              model rank corr. %-9s", "");
  for (const Figures& x : f) std::isfinite(x.model) ? std::printf(" %5.2f", x.model) : std::printf("     -");
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) try {
  Settings s;
  if (!parse_args(argc, argv, s)) return 0;
  for (const std::string& name : s.strategies) {  // reject unknown names before the long part
    kforge::scheduler::make_strategy(name, {{"x", {std::int64_t{0}}}}, {});
  }
  const std::vector<Space> spaces = load_spaces(s);
  const std::vector<Row> rows = rows_of(s);
  if (s.json) {
    std::cout << "{";
    kforge::bench::write_context_json(std::cout, "search_efficiency");
    std::cout << ",\"repeats\":" << s.repeats << ",\"spaces\":[";
    for (std::size_t i = 0; i < spaces.size(); ++i) {
      std::cout << (i ? "," : "") << "{\"name\":" << json_string(spaces[i].name)
                << ",\"configurations\":" << spaces[i].replay.entries().size()
                << ",\"failed\":" << spaces[i].replay.failed_count() << ",\"prior_sets\":" << spaces[i].prior.size()
                << "}";
    }
    std::cout << "],\"results\":[" << std::flush;
  } else {
    std::printf("search_efficiency: %zu spaces, %d repeats, fraction of optimum (mean over repeats)\n", spaces.size(),
                s.repeats);
    for (std::size_t i = 0; i < spaces.size(); ++i) {
      std::printf("  [%zu] %s: %zu configurations, %zu failed; prior: %zu caches (%zu entries)\n", i + 1,
                  spaces[i].name.c_str(), spaces[i].replay.entries().size(), spaces[i].replay.failed_count(),
                  spaces[i].prior.size(), spaces[i].prior_entries);
    }
  }
  bool first = true;
  for (const int b : s.budgets) {
    // Random search first: every other row is printed with its margin over random, in standard errors.
    std::vector<Figures> random;
    for (const Space& space : spaces) random.push_back(measure(space, s, {"random", ""}, b));
    if (!s.json) {
      std::printf("budget %-4d %-26s", b, "strategy");
      for (std::size_t i = 0; i < spaces.size(); ++i) std::printf(" %5s", ("[" + std::to_string(i + 1) + "]").c_str());
      std::printf("  average\n");
    }
    for (const Row& row : rows) {
      std::vector<Figures> figures;
      for (std::size_t i = 0; i < spaces.size(); ++i) {
        figures.push_back(row.strategy == "random" ? random[i] : measure(spaces[i], s, row, b));
        if (s.json) {
          print_json_result(first, b, row, spaces[i].name, figures.back(), s.repeats);
          first = false;
        }
      }
      if (!s.json) print_rows(row, figures, random, s.repeats);
    }
  }
  if (s.json) std::cout << "]}" << std::endl;
  return 0;
} catch (const std::exception& e) {
  std::cerr << "search_efficiency: " << e.what() << "\n";
  return 2;
}
