// The paired bootstrap behind `kforge confirm` (bootstrap.hpp); the report's headline quotes it
// (report/report_headline_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kforge/scheduler/learning/bootstrap.hpp"

namespace ks = kforge::scheduler;

TEST(BootstrapInterval, ConstantRatiosGiveAPointInterval) {
  const auto i = ks::bootstrap_speedup({2.0, 2.0, 2.0, 2.0, 2.0}, 7);
  EXPECT_NEAR(i.estimate, 2.0, 1e-12);
  EXPECT_NEAR(i.low, 2.0, 1e-12);
  EXPECT_NEAR(i.high, 2.0, 1e-12);
  EXPECT_EQ(ks::speedup_verdict(i), "faster");
}

// Two rounds with ratios 1 and 4: a resample's geometric mean is 1, 2 or 4 with probabilities 1/4, 1/2, 1/4, so
// the 2.5% and 97.5% quantiles of 10000 resamples are exactly 1 and 4, and the estimate is sqrt(1*4) = 2.
TEST(BootstrapInterval, TwoRoundsGiveTheKnownDiscreteInterval) {
  const auto i = ks::bootstrap_speedup({1.0, 4.0}, 11);
  EXPECT_NEAR(i.estimate, 2.0, 1e-12);
  EXPECT_NEAR(i.low, 1.0, 1e-12);
  EXPECT_NEAR(i.high, 4.0, 1e-12);
  EXPECT_EQ(ks::speedup_verdict(i), "not_faster");  // the interval includes 1.0
}

// Many rounds: the percentile interval of a mean approaches the normal one, mean +- 1.96 sd / sqrt(n), on logs.
TEST(BootstrapInterval, ManyRoundsMatchTheNormalApproximation) {
  std::vector<double> ratios;
  double sum = 0.0, sum2 = 0.0;
  const int n = 400;
  for (int k = 0; k < n; ++k) {
    const double x = std::log(1.5) + 0.2 * ((k * 37) % n - (n - 1) / 2.0) / n;  // spread evenly, shuffled
    ratios.push_back(std::exp(x));
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean), half = 1.96 * sd / std::sqrt(double(n));
  const auto i = ks::bootstrap_speedup(ratios, 3);
  EXPECT_NEAR(std::log(i.estimate), mean, 1e-12);
  EXPECT_NEAR(std::log(i.low), mean - half, 0.1 * half);
  EXPECT_NEAR(std::log(i.high), mean + half, 0.1 * half);
  EXPECT_EQ(ks::speedup_verdict(i), "faster");
}

TEST(BootstrapInterval, SameSeedSameIntervalOnEveryRun) {
  const std::vector<double> ratios{1.2, 0.9, 1.4, 1.1, 1.05, 0.98, 1.3};
  const auto a = ks::bootstrap_speedup(ratios, 42), b = ks::bootstrap_speedup(ratios, 42);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_LT(a.low, a.estimate);
  EXPECT_GT(a.high, a.estimate);
}

TEST(BootstrapInterval, IntervalContainingOneIsNotFaster) {
  const auto i = ks::bootstrap_speedup({0.9, 1.1, 0.95, 1.05, 1.0, 1.02}, 5);
  ASSERT_LT(i.low, 1.0);
  ASSERT_GT(i.high, 1.0);
  EXPECT_EQ(ks::speedup_verdict(i), "not_faster");
  EXPECT_EQ(ks::describe_speedup({1.01, 0.95, 1.07}, "reference", 10),
            "not faster than reference (interval 0.95-1.07)");
  EXPECT_EQ(ks::describe_speedup({2.1, 1.95, 2.31}, "reference", 10),
            "2.10x faster than reference (interval 1.95-2.31)");
  EXPECT_EQ(ks::describe_speedup({0.5, 0.45, 0.55}, "openblas", 10),
            "0.50x, slower than openblas (interval 0.45-0.55)");
  EXPECT_EQ(ks::speedup_verdict({0.5, 0.45, 0.55}), "slower");
}

TEST(BootstrapInterval, OneRoundOrBadRatiosAreNotAnInterval) {
  const auto one = ks::bootstrap_speedup({3.0}, 1);
  EXPECT_NEAR(one.estimate, 3.0, 1e-12);
  EXPECT_TRUE(std::isnan(one.low));
  EXPECT_EQ(ks::speedup_verdict(one), "not_faster");
  EXPECT_EQ(ks::describe_speedup(one, "reference", 1), "not confirmed against reference (1 paired round)");
  EXPECT_THROW(ks::bootstrap_speedup({1.0, 0.0}, 1), std::invalid_argument);
  EXPECT_THROW(ks::bootstrap_speedup({1.0, NAN}, 1), std::invalid_argument);
}
