// "random": uniform over the valid configurations without repeats, the yardstick every strategy must beat.
#include <algorithm>

#include "strategy_common.hpp"
#include "strategy_internal.hpp"

namespace kforge::scheduler::strategy {
namespace {

class RandomStrategy final : public SearchStrategy {
 public:
  RandomStrategy(std::vector<StrategyParameter> parameters, ValidityOracle valid, const StrategyOptions& options)
      : s_(std::move(parameters), std::move(valid), options) {
    if (s_.space.enumerated()) {
      order_ = s_.space.all_valid();
      std::shuffle(order_.begin(), order_.end(), s_.rng);
    }
  }

  std::string name() const override { return "random"; }

  std::vector<jobs::Genome> ask(int n) override {
    std::vector<jobs::Genome> out;
    while (static_cast<int>(out.size()) < n) {
      const std::optional<Point> p = next();
      if (!p) break;
      out.push_back(s_.space.decode(*p));
    }
    return out;
  }

  void tell(const jobs::Genome& g, double) override { s_.mark_seen(s_.space.encode(g)); }

 private:
  std::optional<Point> next() {
    if (s_.space.enumerated()) {
      while (cursor_ < order_.size()) {
        const Point& p = order_[cursor_++];
        if (s_.mark_seen(p)) return p;
      }
      return std::nullopt;
    }
    for (int a = 0; a < kSampleAttempts; ++a) {
      std::optional<Point> p = s_.space.random_valid(s_.rng, kSampleAttempts);
      if (!p) return std::nullopt;
      if (s_.mark_seen(*p)) return p;
    }
    return std::nullopt;
  }

  StrategyState s_;
  std::vector<Point> order_;
  std::size_t cursor_ = 0;
};

}  // namespace

std::unique_ptr<SearchStrategy> make_random_strategy(std::vector<StrategyParameter> parameters, ValidityOracle valid,
                                                     const StrategyOptions& options) {
  return std::make_unique<RandomStrategy>(std::move(parameters), std::move(valid), options);
}

}  // namespace kforge::scheduler::strategy
