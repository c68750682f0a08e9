// kforge serve's sampling (serve/include/kforge/serve/sampling.hpp): greedy, the seed's reproducibility, and that
// temperature, top_k and top_p draw from the distribution they define.
#include "kforge/serve/sampling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

namespace kforge::serve {
namespace {

std::map<std::int32_t, int> draw(const SamplingParams& p, const std::vector<float>& logits, int n, std::uint64_t seed) {
  TokenSampler s(p, seed);
  std::map<std::int32_t, int> counts;
  for (int i = 0; i < n; ++i) ++counts[s.pick(logits)];
  return counts;
}

TEST(Sampling, GreedyIsTheArgmaxWithTheLowestIndexOnTies) {
  TokenSampler s({0.0, 0, 1.0}, 1);
  EXPECT_EQ(s.pick(std::vector<float>{0.5f, 2.0f, 2.0f, -1.0f}), 1);
  TokenSampler k1({1.0, 1, 1.0}, 1);  // top_k = 1 is greedy whatever the temperature
  EXPECT_EQ(k1.pick(std::vector<float>{0.5f, 2.0f, 2.0f, -1.0f}), 1);
}

TEST(Sampling, TheSameSeedGivesTheSameTokensAndAnotherSeedOthers) {
  const std::vector<float> flat(1000, 0.0f);
  TokenSampler a({1.0, 0, 1.0}, 42), b({1.0, 0, 1.0}, 42), c({1.0, 0, 1.0}, 43);
  std::vector<std::int32_t> ta, tb, tc;
  for (int i = 0; i < 20; ++i) {
    ta.push_back(a.pick(flat));
    tb.push_back(b.pick(flat));
    tc.push_back(c.pick(flat));
  }
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta, tc);
}

TEST(Sampling, TemperatureOneDrawsFromTheSoftmax) {
  // probabilities 0.1, 0.2, 0.3, 0.4: logits are their logs
  const std::vector<float> logits{std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f)};
  const int n = 40000;
  const auto counts = draw({1.0, 0, 1.0}, logits, n, 7);
  for (int t = 0; t < 4; ++t) {
    const double expected = 0.1 * (t + 1);
    // four standard deviations of a binomial share at n draws
    EXPECT_NEAR(static_cast<double>(counts.at(t)) / n, expected, 4 * std::sqrt(expected * (1 - expected) / n)) << t;
  }
}

TEST(Sampling, ALowTemperatureSharpensAndAHighOneFlattens) {
  const std::vector<float> logits{0.0f, 1.0f};
  const int n = 20000;
  const double cold = draw({0.25, 0, 1.0}, logits, n, 3)[1] / static_cast<double>(n);  // e^4 : 1
  const double hot = draw({2.0, 0, 1.0}, logits, n, 3)[1] / static_cast<double>(n);    // e^0.5 : 1
  EXPECT_NEAR(cold, std::exp(4.0) / (1 + std::exp(4.0)), 0.01);
  EXPECT_NEAR(hot, std::exp(0.5) / (1 + std::exp(0.5)), 0.015);
}

TEST(Sampling, TopKAndTopPKeepOnlyTheirNucleus) {
  const std::vector<float> logits{std::log(0.1f), std::log(0.4f), std::log(0.2f), std::log(0.3f)};
  const auto k2 = draw({1.0, 2, 1.0}, logits, 5000, 5);  // tokens 1 and 3
  EXPECT_EQ(k2.size(), 2u);
  EXPECT_TRUE(k2.contains(1) && k2.contains(3));
  const auto p5 = draw({1.0, 0, 0.5}, logits, 5000, 5);  // 0.4 < 0.5, 0.4 + 0.3 >= 0.5: tokens 1 and 3
  EXPECT_EQ(p5.size(), 2u);
  EXPECT_NEAR(p5.at(1) / 5000.0, 0.4 / 0.7, 0.03);
  const auto p1 = draw({1.0, 0, 0.4}, logits, 2000, 5);  // the top token alone reaches 0.4
  EXPECT_EQ(p1.size(), 1u);
  EXPECT_TRUE(p1.contains(1));
}

TEST(Sampling, TopPOverALargeVocabularyFindsTheNucleusBeyondTheFirstSortedBlock) {
  // 50000 tokens with 1000 equally likely ones holding nearly all the mass: the nucleus at 0.9 has 900 of them
  std::vector<float> logits(50000, -30.0f);
  for (int t = 0; t < 1000; ++t) logits[static_cast<std::size_t>(t) * 50] = 0.0f;
  const auto counts = draw({1.0, 0, 0.9}, logits, 3000, 11);
  for (const auto& [token, n] : counts) EXPECT_EQ(token % 50, 0) << token;
  EXPECT_GT(counts.size(), 600u);  // hundreds of the kept tokens were drawn, not just the first block of 64
  EXPECT_LE(counts.size(), 901u);
}

TEST(Sampling, ValuesOutsideTheirRangesAreNamed) {
  EXPECT_STREQ(sampling_error({1.0, 0, 1.0}).field, "");
  EXPECT_STREQ(sampling_error({-0.1, 0, 1.0}).field, "temperature");
  EXPECT_STREQ(sampling_error({NAN, 0, 1.0}).field, "temperature");
  EXPECT_STREQ(sampling_error({1.0, 0, 0.0}).field, "top_p");
  EXPECT_STREQ(sampling_error({1.0, -2, 1.0}).field, "top_k");
}

TEST(Sampling, ATemperatureTooSmallToDivideByIsGreedy) {
  TokenSampler s({1e-300, 0, 1.0}, 1);  // 1 / 1e-300 is inf in float: without the cut, NaN weights
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s.pick(std::vector<float>{0.5f, 2.0f, 1.9f, -1.0f}), 1);
}

}  // namespace
}  // namespace kforge::serve
