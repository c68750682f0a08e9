// Order statistics (statistics.hpp): the median of measurements and the upper median, a value that was seen.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kforge/jobs/statistics.hpp"

using kforge::jobs::median;
using kforge::jobs::upper_median;

TEST(Statistics, MedianIsTheMiddleValueOrTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_DOUBLE_EQ(median({7.5}), 7.5);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(Statistics, UpperMedianIsAlwaysOneOfTheValues) {
  EXPECT_DOUBLE_EQ(upper_median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(upper_median({4.0, 1.0, 2.0, 3.0}), 3.0);
  EXPECT_DOUBLE_EQ(upper_median({7.5}), 7.5);
  EXPECT_TRUE(std::isnan(upper_median({})));
}

TEST(Statistics, InterquartileSpreadIgnoresOneOutlier) {
  using kforge::jobs::interquartile_spread_rel;
  EXPECT_DOUBLE_EQ(interquartile_spread_rel({1, 1, 1, 1, 1, 1, 1, 1, 1, 10}), 0.0);  // (max - min) / median: 9
  EXPECT_NEAR(interquartile_spread_rel({5, 1, 4, 2, 3}), (4.0 - 2.0) / 3.0, 1e-15);  // unsorted, as numpy's quantiles
  EXPECT_NEAR(interquartile_spread_rel({1.0, 1.1, 1.2, 5.0}), (2.15 - 1.075) / 1.15, 1e-12);
  EXPECT_TRUE(std::isnan(interquartile_spread_rel({1.0})));
  EXPECT_TRUE(std::isnan(interquartile_spread_rel({1.0, std::nan(""), 2.0})));
  EXPECT_TRUE(std::isnan(interquartile_spread_rel({0.0, 0.0, 0.0})));
}

TEST(Statistics, RankCorrelationSeesOrderNotScale) {
  using kforge::jobs::rank_correlation;
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3, 4}, {10, 200, 3000, 40000}), 1.0);
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // A failure (+inf) ranks slowest: predicted slowest and failed agree.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3}, {0.5, 0.7, inf}), 1.0);
  // Ties share their mean rank: x ranks 1.5 1.5 3, y ranks 1 2 3.
  EXPECT_NEAR(rank_correlation({1, 1, 2}, {1, 2, 3}), 0.8660254, 1e-6);
  EXPECT_TRUE(std::isnan(rank_correlation({1, 2}, {1, 2})));
  EXPECT_TRUE(std::isnan(rank_correlation({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(rank_correlation({1, 2, 3}, {1, 2})));
  EXPECT_TRUE(std::isnan(rank_correlation({1, std::nan(""), 3}, {1, 2, 3})));
}
