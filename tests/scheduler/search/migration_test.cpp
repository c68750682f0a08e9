// Island migration (migration.hpp): when it happens, who moves where, and what it replaces.
#include <gtest/gtest.h>

#include <vector>

#include "kforge/scheduler/search/migration.hpp"

namespace kforge::scheduler {
namespace {

using Population = std::vector<jobs::PopulationEntry>;

SearchSpec every_second_generation(int size, int population) {
  SearchSpec s;
  s.migration_interval = 2;
  s.migration_size = size;
  s.population = population;
  return s;
}

TEST(IslandMigration, OnlyEveryIntervalGenerationsAndOnlyWithTwoIslandsOrMore) {
  const Population before{{0, "a", 1.0}, {1, "b", 2.0}};
  Population p = before;
  migrate_between_islands(p, 2, 0, every_second_generation(1, 4));  // generation 0: (0 + 1) % 2 != 0
  EXPECT_EQ(p, before);
  migrate_between_islands(p, 1, 1, every_second_generation(1, 4));
  EXPECT_EQ(p, before);
  SearchSpec never = every_second_generation(1, 4);
  never.migration_interval = 0;
  migrate_between_islands(p, 2, 1, never);
  EXPECT_EQ(p, before);
}

TEST(IslandMigration, TheBestOfEachIslandJoinTheNextInARingReplacingItsWorst) {
  Population p{{0, "a1", 1.0}, {0, "a2", 3.0}, {1, "b1", 2.0}, {1, "b2", 4.0}};
  migrate_between_islands(p, 2, 1, every_second_generation(1, 2));
  const Population expected{{0, "b1", 2.0}, {0, "a1", 1.0}, {1, "a1", 1.0}, {1, "b1", 2.0}};
  EXPECT_EQ(p, expected);
}

TEST(IslandMigration, ACandidateAlreadyOnTheNextIslandIsNotCopiedAgain) {
  Population p{{0, "x", 1.0}, {1, "x", 1.0}, {1, "y", 2.0}};
  migrate_between_islands(p, 2, 1, every_second_generation(1, 4));
  const Population expected{{0, "x", 1.0}, {1, "x", 1.0}, {1, "y", 2.0}};
  EXPECT_EQ(p, expected);
}

}  // namespace
}  // namespace kforge::scheduler
