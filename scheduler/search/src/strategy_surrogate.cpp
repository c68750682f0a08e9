// The surrogate strategy ("default"): Bayesian optimisation on log time with a Gaussian process over ordinal
// features, expected improvement over every unseen valid configuration of the pool. Small spaces are
// enumerated, so the pool is the whole valid space; larger ones start from a random valid sample and grow by
// the neighbours of each new incumbent. Failed configurations are modelled as slower than anything measured,
// which steers the search away from regions that fail.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "kforge/jobs/statistics.hpp"
#include "strategy_common.hpp"
#include "strategy_gp.hpp"
#include "strategy_internal.hpp"
#include "strategy_prior.hpp"

namespace kforge::scheduler::strategy {
namespace {

constexpr std::size_t kSampledPoolSize = 20000;  // pool of a space too large to enumerate
constexpr std::size_t kRefitUpTo = 240;          // beyond this, hyperparameters stay (refits cost O(n^2 pool))
constexpr double kRefitGrowth = 1.4;             // refit when the observations grew by this factor
constexpr int kMaximinSample = 200;              // candidates per maximin initial pick
constexpr int kStratifiedSample = 50;            // candidates per stratified initial pick

double expected_improvement(double best, double mean, double variance, double xi) {
  const double sd = std::sqrt(variance);
  const double gain = best - mean - xi;
  if (sd < 1e-12) return std::max(gain, 0.0);
  const double z = gain / sd;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
  return gain * cdf + sd * pdf;
}

std::size_t feature_count(EncodedSpace& space, const SurrogateTuning& tuning) {
  space.use_alignment_features(tuning.alignment);
  space.use_log_scale(tuning.log_scale);
  space.use_product_features(tuning.products);
  return space.feature_count();
}

class SurrogateStrategy final : public SearchStrategy {
 public:
  SurrogateStrategy(std::string name, std::vector<StrategyParameter> parameters, ValidityOracle valid,
                    const StrategyOptions& options, const SurrogateTuning& tuning)
      : name_(std::move(name)),
        s_(std::move(parameters), std::move(valid), options),
        tuning_(tuning),
        budget_hint_(options.budget_hint),
        gp_(feature_count(s_.space, tuning)),
        prior_(s_.space, options.prior),
        blind_picks_left_(tuning.prior_batch_share > 0.0
                              ? static_cast<int>(tuning.prior_batch_share * static_cast<double>(options.batch))
                              : std::numeric_limits<int>::max()) {
    if (s_.space.enumerated()) {
      for (const Point& p : s_.space.all_valid()) add_to_pool(p);
    } else {
      for (int a = 0; a < 10 * static_cast<int>(kSampledPoolSize) && pool_.size() < kSampledPoolSize; ++a) {
        const std::optional<Point> p = s_.space.random_valid(s_.rng, kSampleAttempts);
        if (!p) break;
        add_to_pool(*p);
      }
    }
  }

  std::string name() const override { return name_; }

  ModelQuality model_quality() const override {
    return {static_cast<int>(quality_predicted_.size()), jobs::rank_correlation(quality_predicted_, quality_measured_)};
  }

  void freeze_model_quality() override { quality_frozen_ = true; }

  // The model's present prediction of each configuration, scored against its time when it is told (a campaign
  // replays its archive through a fresh strategy: this is how it learns what the model would have predicted).
  void expect(const std::vector<jobs::Genome>& genomes) override {
    if (observed_.size() < 2) return;
    std::vector<std::size_t> points;
    for (const jobs::Genome& g : genomes) {
      const std::size_t i = add_to_pool(s_.space.encode(g));
      if (!told_.count(i)) points.push_back(i);
    }
    note_predictions(points);
  }

  std::vector<jobs::Genome> ask(int n) override {
    std::vector<jobs::Genome> out;
    std::vector<std::size_t> picks;
    const std::size_t warm =
        static_cast<std::size_t>(tuning_.prior_initial) + static_cast<std::size_t>(tuning_.prior_random);
    if (prior_.usable() && observed_.size() < warm) {
      picks = warm_initial_picks(n);
    } else if (observed_.size() < static_cast<std::size_t>(tuning_.initial_random) && !prior_trusted()) {
      picks = initial_picks(n);  // no prior, or one that ranks unlike this space: the cold design
    } else {
      picks = hedged_picks(n);
    }
    for (const std::size_t i : picks) {
      s_.mark_seen(pool_[i]);
      out.push_back(s_.space.decode(pool_[i]));
    }
    return out;
  }

  void tell(const jobs::Genome& g, double time_ms) override {
    const Point p = s_.space.encode(g);
    const std::size_t i = add_to_pool(p);
    s_.mark_seen(p);
    if (told_.count(i)) return;  // told twice: the first measurement stands
    told_.insert({i, observed_.size()});
    observed_.push_back(i);
    log_times_.push_back(std::isfinite(time_ms) && time_ms > 0 ? std::log(time_ms) : kFailed);
    if (const auto predicted = predicted_.find(i); predicted != predicted_.end() && !quality_frozen_) {
      quality_predicted_.push_back(predicted->second);
      quality_measured_.push_back(log_times_.back());
    }
    gp_.add_observation(features_[i]);
    if (std::isfinite(log_times_.back()) && log_times_.back() < best_log_time_) {
      best_log_time_ = log_times_.back();
      incumbent_ = i;
      if (!s_.space.enumerated()) {
        for (const Point& q : s_.space.neighbours(p)) add_to_pool(q);
      }
    }
    if (observed_.size() >= next_refit_ && observed_.size() <= kRefitUpTo) {
      gp_.refit(residual_targets(), tuning_.ard);
      next_refit_ = static_cast<std::size_t>(std::ceil(static_cast<double>(observed_.size()) * kRefitGrowth));
    }
  }

 private:
  static constexpr double kFailed = std::numeric_limits<double>::infinity();

  std::size_t add_to_pool(const Point& p) {
    const auto [it, fresh] = pool_index_.emplace(s_.space.key(p), pool_.size());
    if (fresh) {
      pool_.push_back(p);
      features_.push_back(s_.space.features(p));
      gp_.add_pool_point(features_.back());
      prior_score_.push_back(prior_.score(s_.space.key(p), features_.back()));
    }
    return it->second;
  }

  // Failures count as slower than the slowest measurement, by a fifth of the measured range.
  std::vector<double> model_targets() const {
    double lo = kFailed, hi = -kFailed;
    for (const double y : log_times_) {
      if (std::isfinite(y)) lo = std::min(lo, y), hi = std::max(hi, y);
    }
    const double failed = std::isfinite(hi) ? hi + 0.2 * std::max(hi - lo, 0.1) : 0.0;
    std::vector<double> y = log_times_;
    for (double& v : y) {
      if (!std::isfinite(v)) v = failed;
    }
    if (tuning_.clip_quantile < 1.0 && y.size() >= 4) {
      std::vector<double> sorted = y;
      const auto q = static_cast<std::ptrdiff_t>(tuning_.clip_quantile * static_cast<double>(y.size() - 1));
      std::nth_element(sorted.begin(), sorted.begin() + q, sorted.end());
      const double cap = sorted[static_cast<std::size_t>(q)];
      for (double& v : y) v = std::min(v, cap);
    }
    return y;
  }

  std::vector<std::size_t> random_picks(int n) {
    std::vector<std::size_t> out;
    for (int a = 0; a < kSampleAttempts && static_cast<int>(out.size()) < n; ++a) {
      const std::size_t i = std::uniform_int_distribution<std::size_t>(0, pool_.size() - 1)(s_.rng);
      if (!s_.seen(pool_[i]) && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    }
    if (static_cast<int>(out.size()) < n) {
      for (std::size_t i = 0; i < pool_.size() && static_cast<int>(out.size()) < n; ++i) {
        if (!s_.seen(pool_[i]) && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
      }
    }
    return out;
  }

  // The prior's best unseen configurations first (ones a set measured before ones only near them), then random
  // ones, or the cold design's with prior_spread (their spread in prior score lets the model tell how far the
  // prior is to be trusted). With prior_batch_share, such blind picks are at most that share of the batch the
  // caller plans (StrategyOptions::batch): none when it measures one at a time, where the first measurements
  // say whether the prior is worth trusting before it steers anything.
  std::vector<std::size_t> warm_initial_picks(int n) {
    std::vector<std::size_t> out;
    const auto better = [&](std::size_t a, std::size_t b) {
      const bool ma = prior_.measured(s_.space.key(pool_[a])), mb = prior_.measured(s_.space.key(pool_[b]));
      return ma != mb ? ma : prior_score_[a] < prior_score_[b];
    };
    const int blind = std::min(n, blind_picks_left_);  // fixed before the loop spends them
    for (int k = 0; k < blind; ++k) {
      if (observed_.size() + out.size() >= static_cast<std::size_t>(tuning_.prior_initial)) break;
      std::size_t chosen = kNone;
      for (std::size_t j = 0; j < pool_.size(); ++j) {
        if (s_.seen(pool_[j]) || std::find(out.begin(), out.end(), j) != out.end()) continue;
        if (chosen == kNone || better(j, chosen)) chosen = j;
      }
      if (chosen == kNone) break;
      out.push_back(chosen);
      --blind_picks_left_;
    }
    const int rest = n - static_cast<int>(out.size());
    for (const std::size_t j : tuning_.prior_spread ? initial_picks(rest) : random_picks(rest)) {
      if (std::find(out.begin(), out.end(), j) == out.end()) out.push_back(j);
    }
    return out;
  }

  // Least squares of the targets on the prior scores of the observed points, slope clamped at 0: a prior
  // that ranks unlike this space ends with no say. Before 3 observations the prior has no say either.
  void fit_prior(const std::vector<double>& y) {
    prior_a_ = 0.0, prior_b_ = 0.0;
    if (!prior_.usable() || y.size() < 3) return;
    double ms = 0.0, my = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) ms += prior_score_[observed_[i]], my += y[i];
    ms /= static_cast<double>(y.size());
    my /= static_cast<double>(y.size());
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double ds = prior_score_[observed_[i]] - ms;
      sxy += ds * (y[i] - my);
      sxx += ds * ds;
      syy += (y[i] - my) * (y[i] - my);
    }
    prior_b_ = sxx > 1e-12 ? std::max(0.0, sxy / sxx) : 0.0;
    // Evidence before say: the correlation of prior score and time must clear prior_trust / sqrt(n), about
    // prior_trust standard errors of a correlation that is really 0, so a misleading prior's chance agreement
    // on a few points does not steer the search.
    const double r = sxx > 1e-12 && syy > 1e-12 ? sxy / std::sqrt(sxx * syy) : 0.0;
    if (r < tuning_.prior_trust / std::sqrt(static_cast<double>(y.size()))) prior_b_ = 0.0;
    prior_a_ = my - prior_b_ * ms;
  }

  bool prior_trusted() {
    if (!prior_.usable()) return false;
    residual_targets();
    return prior_b_ > 0.0;
  }

  // What the GP models: the targets less the prior's part (the targets themselves without a prior).
  std::vector<double> residual_targets() {
    std::vector<double> y = model_targets();
    fit_prior(y);
    for (std::size_t i = 0; i < y.size(); ++i) y[i] -= prior_a_ + prior_b_ * prior_score_[observed_[i]];
    return y;
  }

  std::vector<std::size_t> initial_picks(int n) {
    if (tuning_.stratified_initial) return stratified_picks(n);
    return tuning_.maximin_initial ? maximin_picks(n) : random_picks(n);
  }

  // Latin-hypercube-like: each parameter's values are split into as many bins as there are initial points;
  // among a random sample of unseen points, the one whose bins were used least so far. Unlike maximin it has
  // no pull towards the corners of the space.
  std::vector<std::size_t> stratified_picks(int n) {
    const auto bins = static_cast<std::size_t>(std::max(tuning_.initial_random, 1));
    const auto bin_of = [&](std::size_t j, std::size_t d) {
      return static_cast<std::size_t>(features_[j][d] * static_cast<double>(bins) * 0.999999);
    };
    const std::size_t dims = s_.space.feature_count();
    std::vector<std::vector<int>> used(dims, std::vector<int>(bins, 0));
    for (const std::size_t i : observed_) {
      for (std::size_t d = 0; d < dims; ++d) ++used[d][bin_of(i, d)];
    }
    std::vector<std::size_t> out;
    for (int k = 0; k < n; ++k) {
      std::size_t chosen = kNone;
      int chosen_collisions = std::numeric_limits<int>::max();
      for (const std::size_t j : random_picks(kStratifiedSample)) {
        if (std::find(out.begin(), out.end(), j) != out.end()) continue;
        int collisions = 0;
        for (std::size_t d = 0; d < dims; ++d) collisions += used[d][bin_of(j, d)];
        if (collisions < chosen_collisions) chosen_collisions = collisions, chosen = j;
      }
      if (chosen == kNone) break;
      for (std::size_t d = 0; d < dims; ++d) ++used[d][bin_of(chosen, d)];
      out.push_back(chosen);
    }
    return out;
  }

  // Greedy maximin: among a random sample of unseen points, the one farthest (in features) from everything
  // observed or already picked; the first point of an empty history is random.
  std::vector<std::size_t> maximin_picks(int n) {
    std::vector<std::size_t> out;
    for (int k = 0; k < n; ++k) {
      const std::vector<std::size_t> sample = random_picks(kMaximinSample);
      std::size_t chosen = kNone;
      double chosen_distance = -1.0;
      for (const std::size_t j : sample) {
        if (std::find(out.begin(), out.end(), j) != out.end()) continue;
        double nearest = std::numeric_limits<double>::infinity();
        for (const std::size_t i : observed_) nearest = std::min(nearest, squared_distance(i, j));
        for (const std::size_t i : out) nearest = std::min(nearest, squared_distance(i, j));
        if (nearest > chosen_distance) chosen_distance = nearest, chosen = j;
      }
      if (chosen == kNone) break;
      out.push_back(chosen);
    }
    return out;
  }

  double squared_distance(std::size_t a, std::size_t b) const {
    double d2 = 0.0;
    for (std::size_t d = 0; d < features_[a].size(); ++d) {
      const double t = features_[a][d] - features_[b][d];
      d2 += t * t;
    }
    return d2;
  }

  bool in_local_tail() const {
    if (budget_hint_ <= 0 || tuning_.local_tail_percent <= 0 || incumbent_ == kNone) return false;
    return static_cast<double>(observed_.size()) >= budget_hint_ * (1.0 - tuning_.local_tail_percent / 100.0);
  }

  bool model_predicts_poorly() const {
    const ModelQuality q = model_quality();
    return q.predictions < 4 || !(q.rank_correlation >= tuning_.hedge_below);
  }

  // The model's picks, but while it predicts poorly every hedge_every-th pick is space-filling instead.
  std::vector<std::size_t> hedged_picks(int n) {
    int hedged = 0;
    if (tuning_.hedge_every > 0 && model_predicts_poorly()) {
      for (int k = 0; k < n; ++k) hedged += ++hedge_turn_ % tuning_.hedge_every == 0;
    }
    std::vector<std::size_t> out = hedged < n ? surrogate_picks(n - hedged) : std::vector<std::size_t>{};
    for (const std::size_t i : out) s_.mark_seen(pool_[i]);  // so that the space-filling picks differ
    const std::vector<std::size_t> filling = maximin_picks(n - static_cast<int>(out.size()));
    note_predictions(filling);  // space-filling picks test the model's predictions without its bias
    out.insert(out.end(), filling.begin(), filling.end());
    return out;
  }

  void note_predictions(const std::vector<std::size_t>& points) {
    if (points.empty() || observed_.size() < 2) return;
    const GpPosterior post = gp_.posterior(residual_targets());
    for (const std::size_t i : points) predicted_[i] = post.mean[i] + prior_a_ + prior_b_ * prior_score_[i];
  }

  // The n unseen pool points of highest expected improvement (a batch shares one posterior).
  std::vector<std::size_t> surrogate_picks(int n) {
    const std::vector<double> y = model_targets();
    GpPosterior post = gp_.posterior(residual_targets());
    for (std::size_t j = 0; j < pool_.size(); ++j) post.mean[j] += prior_a_ + prior_b_ * prior_score_[j];
    const double best = *std::min_element(y.begin(), y.end());
    double scale = 0.0;  // xi is given in standard deviations of the observations
    for (const double v : y) scale += (v - best) * (v - best);
    const double xi = tuning_.exploration * std::sqrt(scale / static_cast<double>(y.size()));
    const auto score = [&](std::size_t j) { return expected_improvement(best, post.mean[j], post.variance[j], xi); };
    std::vector<std::size_t> out = choose_by(n, score);
    for (const std::size_t j : out) predicted_[j] = post.mean[j];
    return out.empty() ? random_picks(n) : out;
  }

  template <typename Score>
  std::vector<std::size_t> choose_by(int n, const Score& score) {
    if (in_local_tail()) return top_scored(n, score, 2);
    // Trust region: every local_every-th pick is the best expected improvement next to the incumbent, where
    // a kernel's measured neighbourhood predicts best; the others range over the whole space.
    if (tuning_.local_every > 0 && incumbent_ != kNone && ++model_picks_ % tuning_.local_every == 0) {
      std::vector<std::size_t> local = top_scored(n, score, tuning_.local_radius);
      if (!local.empty()) return local;
    }
    return top_scored(n, score, kAnyDistance);
  }

  // The n unseen pool points of highest score within `radius` changed parameters of the incumbent.
  template <typename Score>
  std::vector<std::size_t> top_scored(int n, const Score& score, int radius) {
    std::vector<std::pair<double, std::size_t>> scored;
    for (std::size_t j = 0; j < pool_.size(); ++j) {
      if (s_.seen(pool_[j])) continue;
      if (radius != kAnyDistance && !next_to_incumbent(j, radius)) continue;
      scored.emplace_back(score(j), j);
    }
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(std::max(n, 0)), scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(k), scored.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < k; ++i) out.push_back(scored[i].second);
    return out;
  }

  bool next_to_incumbent(std::size_t j, int radius) const {
    int differing = 0;
    const Point& a = pool_[j];
    const Point& b = pool_[incumbent_];
    for (std::size_t d = 0; d < a.size(); ++d) differing += a[d] != b[d];
    return differing <= radius;
  }

  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  static constexpr int kAnyDistance = -1;
  std::string name_;
  StrategyState s_;
  SurrogateTuning tuning_;
  int budget_hint_ = 0;
  GpModel gp_;
  PriorScores prior_;
  int blind_picks_left_ = 0;         // prior_batch_share of StrategyOptions::batch (no share: no bound)
  std::vector<double> prior_score_;  // per pool point (0 without a prior)
  double prior_a_ = 0.0, prior_b_ = 0.0;
  std::vector<Point> pool_;
  std::vector<Features> features_;
  std::unordered_map<std::uint64_t, std::size_t> pool_index_;
  std::unordered_map<std::size_t, std::size_t> told_;  // pool index -> observation index
  std::vector<std::size_t> observed_;
  std::vector<double> log_times_;  // +inf for a failed evaluation
  double best_log_time_ = kFailed;
  std::size_t incumbent_ = kNone;
  std::size_t next_refit_ = 2;
  int model_picks_ = 0;
  int hedge_turn_ = 0;
  bool quality_frozen_ = false;
  std::unordered_map<std::size_t, double> predicted_;  // pool index -> predicted log time when chosen
  std::vector<double> quality_predicted_, quality_measured_;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_surrogate_strategy(std::string name, std::vector<StrategyParameter> parameters,
                                                        ValidityOracle valid, const StrategyOptions& options,
                                                        const SurrogateTuning& tuning) {
  return std::make_unique<SurrogateStrategy>(std::move(name), std::move(parameters), std::move(valid), options, tuning);
}

}  // namespace kforge::scheduler::strategy
