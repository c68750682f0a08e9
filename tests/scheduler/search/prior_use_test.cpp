// What a campaign does with prior sets (prior_use.hpp): the configurations they rank best together, and after the
// campaign, each set's worth as a rank correlation and where its best landed.
#include "kforge/scheduler/search/prior_use.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kforge::scheduler {
namespace {

jobs::Genome g(std::int64_t x) {
  jobs::Genome genome;
  genome.params["X"] = x;
  return genome;
}

const double kFailed = std::numeric_limits<double>::infinity();

TEST(BestOfPriors, RanksCombineAcrossSetsAndOnlyValidMeasuredConfigurationsArePicked) {
  // Two GPUs: times differ by 10x (never compared), rankings nearly agree.
  const PriorObservations a{"a", {{g(1), 1.0}, {g(2), 2.0}, {g(3), 3.0}, {g(4), kFailed}}};
  const PriorObservations b{"b", {{g(1), 20.0}, {g(2), 10.0}, {g(3), 30.0}, {g(5), 5.0}}};
  const auto valid = [](const jobs::Genome& x) { return std::get<std::int64_t>(x.params.at("X")) != 5; };
  const std::vector<PriorPick> picks = best_of_priors({a, b}, valid, 10);
  ASSERT_EQ(picks.size(), 3u);  // 4 failed everywhere it ran, 5 is not valid here
  // Rank fractions (rank - 0.5) / 4. 1: ranks 1 and 3 -> (0.125 + 0.625) / 2; 2: ranks 2 and 2 -> the same, kept
  // in genome order; 3: ranks 3 and 4 -> 0.75.
  EXPECT_EQ(picks[0].genome.to_text(), "X=1");
  EXPECT_DOUBLE_EQ(picks[0].score, 0.375);
  EXPECT_EQ(picks[1].genome.to_text(), "X=2");
  EXPECT_DOUBLE_EQ(picks[1].score, 0.375);
  EXPECT_EQ(picks[2].genome.to_text(), "X=3");
  EXPECT_DOUBLE_EQ(picks[2].score, 0.75);
  ASSERT_EQ(picks[0].evidence.size(), 2u);
  EXPECT_EQ(picks[0].evidence[1].source, "b");
  EXPECT_EQ(picks[0].evidence[1].rank, 3);
  EXPECT_EQ(picks[0].evidence[1].of, 4);
  EXPECT_DOUBLE_EQ(picks[0].evidence[1].time_ms, 20.0);
  EXPECT_EQ(best_of_priors({a, b}, valid, 1).size(), 1u);
}

TEST(BestOfPriors, AConfigurationOneSetNeverMeasuredCountsAsItsMedian) {
  const PriorObservations a{"a", {{g(1), 1.0}, {g(2), 2.0}, {g(3), 3.0}, {g(4), 4.0}}};
  const PriorObservations b{"b", {{g(9), 1.0}, {g(2), 2.0}, {g(3), 3.0}, {g(4), 4.0}}};
  const auto picks = best_of_priors(
      {a, b}, [](const jobs::Genome&) { return true; }, 3);
  // 1 and 9 are first in one set and absent from the other ((0.125 + 0.5) / 2 = 0.3125); 2 is second in both
  // (0.375); 4, last in both, is not among the three.
  ASSERT_EQ(picks.size(), 3u);
  EXPECT_EQ(picks[0].genome.to_text(), "X=1");
  EXPECT_DOUBLE_EQ(picks[0].score, 0.3125);
  EXPECT_EQ(picks[1].genome.to_text(), "X=9");
  EXPECT_EQ(picks[2].genome.to_text(), "X=2");
}

TEST(PriorWorth, AFaithfulPriorCorrelatesAndItsBestLandsFirst) {
  const PriorObservations prior{"p", {{g(1), 1.0}, {g(2), 2.0}, {g(3), 3.0}, {g(4), 4.0}}};
  const PriorWorth faithful = prior_worth(prior, {{g(1), 10.0}, {g(2), 20.0}, {g(3), 30.0}, {g(7), 5.0}});
  EXPECT_EQ(faithful.shared, 3);
  EXPECT_DOUBLE_EQ(faithful.rank_correlation, 1.0);
  EXPECT_EQ(faithful.best_rank_here, 2);  // 7 was faster here
  EXPECT_EQ(faithful.measured_here, 4);
  EXPECT_NE(describe(faithful).find("rank correlation 1.00 with this campaign on 3 shared configurations; its best "
                                    "ranked 2 of 4 here"),
            std::string::npos)
      << describe(faithful);
  const PriorWorth reversed = prior_worth(prior, {{g(1), 40.0}, {g(2), 30.0}, {g(3), 20.0}});
  EXPECT_DOUBLE_EQ(reversed.rank_correlation, -1.0);
  EXPECT_EQ(reversed.best_rank_here, 3);
  const PriorWorth disjoint = prior_worth(prior, {{g(8), 1.0}});
  EXPECT_EQ(disjoint.shared, 0);
  EXPECT_TRUE(std::isnan(disjoint.rank_correlation));
  EXPECT_NE(describe(disjoint).find("its best was not measured here"), std::string::npos);
}

}  // namespace
}  // namespace kforge::scheduler
