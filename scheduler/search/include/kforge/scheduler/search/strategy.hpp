#pragma once
// Ask/tell search strategies over a discrete space of tuning parameters, for measured (expensive) evaluations.
// Used in-process by bench/search_efficiency and by the campaign runner: ask() proposes configurations,
// tell() reports what each one measured. Every told configuration counts against the caller's budget,
// failures included, so a strategy never asks for a configuration it was told about or already asked for,
// and asks only for configurations the validity oracle accepts.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kforge/jobs/genome.hpp"

namespace kforge::scheduler {

struct StrategyParameter {
  std::string name;
  std::vector<jobs::ParamValue> values;  // ordered: neighbouring values are treated as similar
};

// True when a configuration satisfies the space's constraints. Called often: keep it cheap.
using ValidityOracle = std::function<bool(const jobs::Genome&)>;

// Measurements of the same space taken elsewhere: another GPU, another problem size, an earlier campaign or
// another island (search.prior). Strategies use only their order, never their absolute times; entries that
// are not configurations of the space being searched are ignored.
struct PriorObservations {
  std::string source;                                     // file or archive, for messages
  std::vector<std::pair<jobs::Genome, double>> measured;  // time in ms, +inf for a failed configuration
};

struct StrategyOptions {
  std::uint64_t seed = 1;
  int budget_hint = 0;  // evaluations the caller intends to spend (0 = unknown); only shapes the schedule
  // Spaces whose Cartesian product is at most this large are enumerated once (every valid configuration
  // known up front); larger ones are sampled through the oracle.
  std::uint64_t enumerate_limit = 4'000'000;
  std::vector<PriorObservations> prior;  // warm start (surrogate strategies; "random" ignores it)
  // Proposals the caller plans before any is measured (a campaign's generation, asked one at a time with lies
  // told between); 1 = measured one by one. A share of such a batch may follow a prior blindly.
  int batch = 1;
};

// How well a model-based strategy predicted the configurations it chose: the rank correlation (Spearman) of the
// log time it predicted when it chose them and the time then told, failures ranked slowest. No model, or fewer
// than 3 such pairs: predictions < 3 and rank_correlation NaN.
struct ModelQuality {
  int predictions = 0;
  double rank_correlation = std::numeric_limits<double>::quiet_NaN();
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;
  // Up to n new valid configurations, none asked or told before; fewer (possibly none) when the space is spent.
  virtual std::vector<jobs::Genome> ask(int n) = 0;
  // The measured time in ms, or +inf for a failed evaluation. Throws std::invalid_argument when the genome
  // has a parameter or value outside the space.
  virtual void tell(const jobs::Genome& g, double time_ms_or_inf) = 0;
  virtual ModelQuality model_quality() const { return {}; }
  // Asks a model-based strategy to note its present prediction of each configuration and score it when that
  // configuration is told (model_quality); the others ignore it. For callers that replay history into a fresh
  // strategy, as a campaign does every generation.
  virtual void expect(const std::vector<jobs::Genome>& /*genomes*/) {}
  // From now on tells are stand-ins (a "constant liar" while a batch is planned), not measurements: they no longer
  // count in model_quality, which the strategy also uses to decide how far to trust its model.
  virtual void freeze_model_quality() {}
};

// "random": uniform over the valid configurations, without repeats.
// "default": the best measured strategy: a Gaussian-process surrogate on log time (ordinal + factors-of-two
//            features, per-parameter lengthscales) choosing by expected improvement among every valid
//            configuration (or a large sample of them, grown around each new incumbent) after 8 spread-out
//            (maximin) ones; every second pick looks next to the incumbent, and while the model ranks its own
//            picks poorly (model_quality) every fourth pick is space-filling instead: a hedge that keeps it above
//            random search on spaces it cannot learn.
// "gp-*":    measured variants of "default" (bench/search_efficiency --strategy NAME); "gp+KNOB+...":
//            "default" with knobs changed (log, prod, trN, rN, initN, pinitN, prandN, xiX; strategy.cpp).
// With StrategyOptions::prior, the surrogate strategies warm-start from the prior's ranking (bench/README.md).
// Throws std::invalid_argument naming the known strategies for an unknown name, or for an empty space.
std::unique_ptr<SearchStrategy> make_strategy(std::string_view name, std::vector<StrategyParameter> parameters,
                                              ValidityOracle valid, StrategyOptions options = {});
std::vector<std::string> strategy_names();

}  // namespace kforge::scheduler
