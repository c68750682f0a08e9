// The seeds of independent random streams (mix_seed.hpp).
#include <gtest/gtest.h>

#include "kforge/scheduler/search/mix_seed.hpp"

using kforge::scheduler::mix_seed;

TEST(MixSeed, DiffersAcrossGenerationsAndIslandsAndIsStable) {
  EXPECT_EQ(mix_seed(1, 2, 3), mix_seed(1, 2, 3));
  EXPECT_NE(mix_seed(1, 2, 3), mix_seed(1, 3, 2));
  EXPECT_NE(mix_seed(1, 2, 3), mix_seed(2, 2, 3));
}
