// Order statistics (statistics.hpp): the median of measurements and the upper median, a value that was seen.
#include <gtest/gtest.h>

#include <cmath>

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
