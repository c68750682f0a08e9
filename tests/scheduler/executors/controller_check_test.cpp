// GRES matching of `kforge validate`'s controller check: a site's request against nodes' Gres= as Slurm prints it.
#include <gtest/gtest.h>

#include "kforge/scheduler/executors/controller_check.hpp"

using kforge::scheduler::some_node_offers;

TEST(ControllerCheck, ANodeOffersARequestOfItsModelAndAtMostItsCount) {
  const std::vector<std::string> nodes{"gpu:h100:4(S:0-1),gpu:b200:4(S:0,1)", "gpu:a100:8"};
  EXPECT_TRUE(some_node_offers(nodes, "gpu:h100:4"));
  EXPECT_TRUE(some_node_offers(nodes, "gpu:b200:1"));
  EXPECT_TRUE(some_node_offers(nodes, "gpu:h100"));  // no count: one
  EXPECT_TRUE(some_node_offers(nodes, "gpu:8"));     // no model: any GPUs, counted together
  EXPECT_TRUE(some_node_offers(nodes, "gpu:a100:8"));
  EXPECT_FALSE(some_node_offers(nodes, "gpu:h100:8"));             // more than any node has
  EXPECT_FALSE(some_node_offers(nodes, "gpu:h200:1"));             // a model no node has
  EXPECT_FALSE(some_node_offers(nodes, "gpu:h100:1,gpu:a100:1"));  // both on one node: none has
  EXPECT_FALSE(some_node_offers({"(null)"}, "gpu:1"));
  EXPECT_FALSE(some_node_offers({}, "gpu:1"));
}
