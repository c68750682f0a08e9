// Survivor selection: elitism, failures only when needed, size, determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "kforge/scheduler/search/population.hpp"

namespace kforge::scheduler {
namespace {

constexpr double kFailed = std::numeric_limits<double>::infinity();

Member member(int n, double fitness_ms) {
  Member m;
  m.candidate.id = "cand" + std::to_string(n);
  m.fitness_ms = fitness_ms;
  return m;
}

// `ok` members with fitness 1..ok (in shuffled order), then `failed` failures.
std::vector<Member> pool_of(int ok, int failed) {
  std::vector<Member> pool;
  for (int i = 0; i < ok; ++i) pool.push_back(member(i, 1.0 + ((i * 7) % ok)));
  for (int i = 0; i < failed; ++i) pool.push_back(member(ok + i, kFailed));
  return pool;
}

SearchSpec spec(int population, int elite, int tournament) {
  SearchSpec s;
  s.population = population;
  s.elite = elite;
  s.tournament = tournament;
  return s;
}

bool contains_id(const std::vector<Member>& v, const std::string& id) {
  return std::any_of(v.begin(), v.end(), [&](const Member& m) { return m.candidate.id == id; });
}

TEST(SelectSurvivors, ReturnsThePopulationSizeWithoutDuplicates) {
  std::mt19937_64 rng(1);
  const auto survivors = select_survivors(pool_of(30, 10), spec(16, 2, 3), rng);
  ASSERT_EQ(survivors.size(), 16u);
  std::set<std::string> ids;
  for (const Member& m : survivors) ids.insert(m.candidate.id);
  EXPECT_EQ(ids.size(), 16u);
}

TEST(SelectSurvivors, AlwaysKeepsTheElite) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pool = pool_of(40, 0);
    const auto survivors = select_survivors(pool, spec(8, 3, 4), rng);
    ASSERT_EQ(survivors.size(), 8u);
    for (double best : {1.0, 2.0, 3.0}) {
      const auto it = std::find_if(pool.begin(), pool.end(), [&](const Member& m) { return m.fitness_ms == best; });
      EXPECT_TRUE(contains_id(survivors, it->candidate.id)) << "elite member " << best << " lost, seed " << seed;
    }
  }
}

TEST(SelectSurvivors, NeverKeepsAFailureWhenEnoughOkMembersExist) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    const auto survivors = select_survivors(pool_of(12, 30), spec(10, 2, 3), rng);
    ASSERT_EQ(survivors.size(), 10u);
    for (const Member& m : survivors) EXPECT_TRUE(std::isfinite(m.fitness_ms)) << "seed " << seed;
  }
}

TEST(SelectSurvivors, FillsWithFailuresOnlyWhenOkMembersRunOut) {
  std::mt19937_64 rng(3);
  const auto survivors = select_survivors(pool_of(4, 10), spec(6, 1, 3), rng);
  ASSERT_EQ(survivors.size(), 6u);
  const auto finite =
      std::count_if(survivors.begin(), survivors.end(), [](const Member& m) { return std::isfinite(m.fitness_ms); });
  EXPECT_EQ(finite, 4);  // every ok member, then two failures
}

TEST(SelectSurvivors, TournamentsFavourFitterMembers) {
  // Over many seeds, the best non-elite member survives far more often than the worst.
  int best_kept = 0;
  int worst_kept = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(seed);
    const auto survivors = select_survivors(pool_of(20, 0), spec(6, 1, 3), rng);
    best_kept += std::any_of(survivors.begin(), survivors.end(), [](const Member& m) { return m.fitness_ms == 2.0; });
    worst_kept += std::any_of(survivors.begin(), survivors.end(), [](const Member& m) { return m.fitness_ms == 20.0; });
  }
  EXPECT_GT(best_kept, 2 * worst_kept);
}

TEST(SelectSurvivors, IsDeterministicForASeed) {
  std::mt19937_64 a(77);
  std::mt19937_64 b(77);
  const auto first = select_survivors(pool_of(25, 5), spec(9, 2, 3), a);
  const auto second = select_survivors(pool_of(25, 5), spec(9, 2, 3), b);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].candidate.id, second[i].candidate.id);
}

TEST(SelectSurvivors, SmallPoolSurvivesWholeSortedByFitness) {
  std::mt19937_64 rng(1);
  const auto survivors = select_survivors(pool_of(5, 2), spec(16, 2, 3), rng);
  ASSERT_EQ(survivors.size(), 7u);
  EXPECT_TRUE(std::is_sorted(survivors.begin(), survivors.end(),
                             [](const Member& x, const Member& y) { return x.fitness_ms < y.fitness_ms; }));
}

TEST(SelectSurvivors, TheSameCandidateTakesOneSlot) {
  std::vector<Member> pool = pool_of(6, 0);
  pool.push_back(member(0, 0.5));  // cand0 again, better
  std::mt19937_64 rng(1);
  const auto survivors = select_survivors(pool, spec(10, 2, 3), rng);
  ASSERT_EQ(survivors.size(), 6u);
  EXPECT_EQ(survivors.front().candidate.id, "cand0");
  EXPECT_DOUBLE_EQ(survivors.front().fitness_ms, 0.5);
}

}  // namespace
}  // namespace kforge::scheduler
