// Operator credit: a child is credited when it beats its best parent; a parentless child when it beats the
// median survivor of the population it was bred against; failures are never improvements.
#include <gtest/gtest.h>

#include <limits>

#include "kforge/scheduler/learning/learning.hpp"
#include "learning_test_support.hpp"

namespace kforge::scheduler::testing {
namespace {

constexpr double kFailed = std::numeric_limits<double>::infinity();

ArchiveView two_parents() {
  ArchiveView a;
  a.add(
      generation(0, {record("p1", "init", {}, 10.0), record("p2", "init", {}, 20.0), record("p3", "init", {}, 30.0)}));
  return a;
}

TEST(OperatorCredit, ChildIsCreditedOnlyWhenFasterThanItsBestParent) {
  const ArchiveView a = two_parents();
  const jobs::Generation g = generation(1, {record("c1", "crossover", {"p1", "p2"}, 15.0),  // slower than p1
                                            record("c2", "crossover", {"p2", "p3"}, 15.0),  // faster than p2
                                            record("c3", "mutation", {"p1"}, 9.0)});
  const auto credit = generation_credit(a, g);
  EXPECT_EQ(credit.at("crossover").children, 2);
  EXPECT_EQ(credit.at("crossover").improved, 1);
  EXPECT_EQ(credit.at("mutation").improved, 1);
}

TEST(OperatorCredit, ImmigrantIsCreditedWhenFasterThanTheMedianSurvivor) {
  const ArchiveView a = two_parents();  // survivors 10, 20, 30: median 20
  const auto credit =
      generation_credit(a, generation(1, {record("i1", "immigrant", {}, 19.0), record("i2", "immigrant", {}, 21.0)}));
  EXPECT_EQ(credit.at("immigrant").children, 2);
  EXPECT_EQ(credit.at("immigrant").improved, 1);
}

TEST(OperatorCredit, FailedChildCountsButNeverImproves) {
  const ArchiveView a = two_parents();
  const auto credit = generation_credit(a, generation(1, {record("c1", "mutation", {"p3"}, kFailed)}));
  EXPECT_EQ(credit.at("mutation").children, 1);
  EXPECT_EQ(credit.at("mutation").ok, 0);
  EXPECT_EQ(credit.at("mutation").improved, 0);
}

TEST(OperatorCredit, CampaignCreditAddsTheGenerationBeingAssembled) {
  ArchiveView a = two_parents();
  a.add(generation(1, {record("c1", "mutation", {"p1"}, 5.0)}));
  const jobs::Generation latest = generation(2, {record("c2", "mutation", {"c1"}, 4.0)});
  EXPECT_EQ(campaign_credit(a).at("mutation").improved, 1);
  EXPECT_EQ(campaign_credit(a, &latest).at("mutation").improved, 2);
  EXPECT_EQ(campaign_credit(a, &latest).at("init").children, 3);
  EXPECT_EQ(campaign_credit(a, &latest).at("init").improved, 0);  // the start has nothing to improve on
}

}  // namespace
}  // namespace kforge::scheduler::testing
