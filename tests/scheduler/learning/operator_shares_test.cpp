// Adaptive operator shares: the configured rates before any evidence, more offspring for the operator whose
// children improve, a floor for every enabled operator, none for a disabled one, and the stored weights.
#include <gtest/gtest.h>

#include <limits>

#include "kforge/scheduler/learning/learning.hpp"
#include "learning_test_support.hpp"

namespace kforge::scheduler::testing {
namespace {

double total(const std::map<std::string, double>& shares) {
  double t = 0.0;
  for (const auto& [op, w] : shares) t += w;
  return t;
}

// Generation 1: every mutation child improved, no crossover child did.
ArchiveView mutation_wins() {
  ArchiveView a;
  a.add(generation(0, {record("p1", "init", {}, 10.0), record("p2", "init", {}, 20.0)}));
  std::vector<jobs::EvalRecord> g1;
  for (int i = 0; i < 6; ++i) g1.push_back(record("m" + std::to_string(i), "mutation", {"p1"}, 9.0 - i));
  for (int i = 0; i < 6; ++i) g1.push_back(record("x" + std::to_string(i), "crossover", {"p1", "p2"}, 11.0 + i));
  a.add(generation(1, g1));
  return a;
}

TEST(OperatorShares, WithoutEvidenceTheConfiguredRatesHold) {
  ArchiveView a;
  a.add(generation(0, {record("p1", "init", {}, 10.0)}));
  const auto shares = operator_shares(campaign(0.6, 0.3), a, 0);
  EXPECT_NEAR(shares.at("mutation"), 0.6, 1e-9);
  EXPECT_NEAR(shares.at("crossover"), 0.3, 1e-9);
  EXPECT_NEAR(shares.at("immigrant"), 0.1, 1e-9);
}

TEST(OperatorShares, OperatorWhoseChildrenImproveGetsMore) {
  const auto shares = operator_shares(campaign(0.5, 0.4), mutation_wins(), 0);
  EXPECT_GT(shares.at("mutation"), 0.5);
  EXPECT_LT(shares.at("crossover"), 0.4);
  EXPECT_NEAR(total(shares), 1.0, 1e-9);
}

TEST(OperatorShares, EnabledOperatorKeepsTheFloorAndDisabledOneStaysOff) {
  CampaignConfig c = campaign(0.9, 0.1);  // immigrants disabled
  c.search.min_operator_share = 0.15;
  const auto shares = operator_shares(c, mutation_wins(), 0);
  EXPECT_GE(shares.at("crossover"), 0.15 - 1e-9);
  EXPECT_EQ(shares.at("immigrant"), 0.0);
  EXPECT_NEAR(total(shares), 1.0, 1e-9);
}

TEST(OperatorShares, NonAdaptiveCampaignKeepsItsRates) {
  CampaignConfig c = campaign(0.5, 0.4);
  c.search.adaptive_operators = false;
  const auto shares = operator_shares(c, mutation_wins(), 0);
  EXPECT_NEAR(shares.at("mutation"), 0.5, 1e-9);
  EXPECT_NEAR(shares.at("crossover"), 0.4, 1e-9);
}

TEST(OperatorShares, AgentsTakeTheirWeightBeforeTheBuiltins) {
  CampaignConfig c = campaign(0.6, 0.3);
  c.agents.push_back(AgentOperatorConfig{"rewriter", {"true"}, 0.5, 10.0, {}});
  ArchiveView a;
  a.add(generation(0, {record("p1", "init", {}, 10.0)}));
  const auto shares = operator_shares(c, a, 0);
  EXPECT_NEAR(shares.at("agent:rewriter"), 0.5, 1e-9);
  EXPECT_NEAR(shares.at("mutation"), 0.3, 1e-9);
}

TEST(OperatorWeights, RowsHoldThePlannedShareAndTheOutcome) {
  const ArchiveView before = mutation_wins();
  const jobs::Generation g2 =
      generation(2, {record("m9", "mutation", {"m5"}, 1.0), record("x9", "crossover", {"m5", "m4"}, 8.0)});
  const auto rows = operator_weights(campaign(0.5, 0.4), before, g2);
  const auto shares = operator_shares(campaign(0.5, 0.4), before, 0);
  ASSERT_EQ(rows.size(), 3u);  // crossover, immigrant, mutation
  for (const auto& w : rows) {
    EXPECT_EQ(w.island, 0);
    EXPECT_DOUBLE_EQ(w.weight, shares.at(w.op)) << w.op;
    if (w.op == "mutation") {
      EXPECT_EQ(w.improved, 1);
    } else if (w.op == "crossover") {
      EXPECT_EQ(w.improved, 0);
    } else {
      EXPECT_EQ(w.children, 0) << w.op;
    }
  }
}

}  // namespace
}  // namespace kforge::scheduler::testing
