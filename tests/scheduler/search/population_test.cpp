// Generation-0 candidates and breeding: valid, new, correctly labelled children; exhaustion; determinism.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>

#include "gemm_host_space.hpp"
#include "kforge/scheduler/search/population.hpp"

namespace kforge::scheduler {
namespace {

using testing::constraint;
using testing::gemm_host_space;
using testing::int_parameter;

const CandidateTemplate kTemplate{"gemm", "host", "-DKFORGE_TEST"};

std::vector<Member> as_members(const std::vector<jobs::Candidate>& candidates) {
  std::vector<Member> members;
  double t = 1.0;
  for (const jobs::Candidate& c : candidates) members.push_back(Member{c, t++});
  return members;
}

TEST(InitialCandidates, AreDistinctValidAndLabelledInit) {
  const SearchSpace space(gemm_host_space());
  std::set<std::string> seen;
  std::mt19937_64 rng(42);
  const auto init = initial_candidates(space, 40, kTemplate, 3, seen, rng);
  ASSERT_EQ(init.size(), 40u);
  std::set<std::string> ids;
  for (const jobs::Candidate& c : init) {
    EXPECT_TRUE(space.contains(c.genome)) << c.genome.to_text();
    EXPECT_EQ(c.id, jobs::candidate_id(c));
    EXPECT_EQ(c.op, "init");
    EXPECT_TRUE(c.parents.empty());
    EXPECT_EQ(c.generation, 0);
    EXPECT_EQ(c.island, 3);
    EXPECT_EQ(c.family, "gemm");
    EXPECT_EQ(c.backend, "host");
    EXPECT_EQ(c.compile_flags, "-DKFORGE_TEST");
    EXPECT_TRUE(c.source.empty());
    ids.insert(c.id);
  }
  EXPECT_EQ(ids.size(), init.size());
  EXPECT_EQ(seen, ids);
}

TEST(InitialCandidates, SkipIdsAlreadySeen) {
  const SearchSpace space(gemm_host_space());
  std::set<std::string> seen;
  std::mt19937_64 rng(5);
  const auto first = initial_candidates(space, 10, kTemplate, 0, seen, rng);
  std::mt19937_64 same_seed(5);
  const auto second = initial_candidates(space, 10, kTemplate, 0, seen, same_seed);
  ASSERT_EQ(second.size(), 10u);
  for (const jobs::Candidate& c : second) {
    for (const jobs::Candidate& old : first) EXPECT_NE(c.id, old.id);
  }
  EXPECT_EQ(seen.size(), 20u);
}

TEST(Breed, ChildrenAreValidNewDistinctAndLabelled) {
  const SearchSpace space(gemm_host_space());
  std::set<std::string> seen;
  std::mt19937_64 rng(11);
  const auto parents = as_members(initial_candidates(space, 16, kTemplate, 1, seen, rng));
  std::set<std::string> parent_ids;
  for (const Member& m : parents) parent_ids.insert(m.candidate.id);
  const std::set<std::string> seen_before = seen;

  SearchSpec search;  // 0.6 mutation, 0.3 crossover, 0.1 immigrants
  const auto children = breed(space, parents, 20, search, kTemplate, 4, 1, seen, rng);
  ASSERT_EQ(children.size(), 20u);
  std::set<std::string> child_ids;
  std::map<std::string, int> ops;
  for (const jobs::Candidate& c : children) {
    EXPECT_TRUE(space.contains(c.genome)) << c.genome.to_text();
    EXPECT_EQ(seen_before.count(c.id), 0u) << "child reuses an id that was already seen";
    EXPECT_TRUE(child_ids.insert(c.id).second) << "duplicate child " << c.id;
    EXPECT_EQ(c.id, jobs::candidate_id(c));
    EXPECT_EQ(c.generation, 4);
    EXPECT_EQ(c.island, 1);
    EXPECT_EQ(c.family, "gemm");
    EXPECT_TRUE(c.source.empty());
    ++ops[c.op];
    if (c.op == "mutation") {
      ASSERT_EQ(c.parents.size(), 1u);
    } else if (c.op == "crossover") {
      ASSERT_EQ(c.parents.size(), 2u);
      EXPECT_NE(c.parents[0], c.parents[1]);
    } else {
      EXPECT_EQ(c.op, "immigrant");
      EXPECT_TRUE(c.parents.empty());
    }
    for (const std::string& p : c.parents) EXPECT_EQ(parent_ids.count(p), 1u) << "parent is not a member";
    EXPECT_EQ(seen.count(c.id), 1u) << "seen was not extended";
  }
  EXPECT_EQ(seen.size(), seen_before.size() + children.size());
  // Fallbacks may turn a crossover into a mutation, but in this roomy space the proportions hold.
  EXPECT_GE(ops["mutation"], 10);
  EXPECT_GE(ops["crossover"], 4);
  EXPECT_GE(ops["immigrant"], 1);
}

TEST(Breed, MutationChangesOneOrTwoParameters) {
  const SearchSpace space(gemm_host_space());
  std::set<std::string> seen;
  std::mt19937_64 rng(2);
  const auto parents = as_members(initial_candidates(space, 8, kTemplate, 0, seen, rng));
  SearchSpec all_mutation;
  all_mutation.mutation_rate = 1.0;
  all_mutation.crossover_rate = 0.0;
  const auto children = breed(space, parents, 30, all_mutation, kTemplate, 1, 0, seen, rng);
  ASSERT_EQ(children.size(), 30u);
  for (const jobs::Candidate& c : children) {
    ASSERT_EQ(c.op, "mutation");
    const Member* parent = nullptr;
    for (const Member& m : parents)
      if (m.candidate.id == c.parents.at(0)) parent = &m;
    ASSERT_NE(parent, nullptr);
    int changed = 0;
    for (const auto& [name, value] : c.genome.params) changed += parent->candidate.genome.params.at(name) != value;
    EXPECT_GE(changed, 1);
    EXPECT_LE(changed, 2);
  }
}

TEST(Breed, WithoutParentsEveryChildIsAnImmigrant) {
  const SearchSpace space(gemm_host_space());
  std::set<std::string> seen;
  std::mt19937_64 rng(8);
  const auto children = breed(space, {}, 5, SearchSpec{}, kTemplate, 2, 0, seen, rng);
  ASSERT_EQ(children.size(), 5u);
  for (const jobs::Candidate& c : children) EXPECT_EQ(c.op, "immigrant");
}

TEST(Breed, IsDeterministicForASeed) {
  const SearchSpace space(gemm_host_space());
  const auto run = [&] {
    std::set<std::string> seen;
    std::mt19937_64 rng(1234);
    const auto parents = as_members(initial_candidates(space, 12, kTemplate, 0, seen, rng));
    return breed(space, parents, 16, SearchSpec{}, kTemplate, 1, 0, seen, rng);
  };
  EXPECT_EQ(run(), run());
}

TEST(Breed, ExhaustedTinySpaceReturnsFewerThanAskedWithoutHanging) {
  SpaceSpec spec;
  spec.parameters = {int_parameter("A", {1, 2, 3}), int_parameter("B", {1, 2})};
  spec.constraints = {constraint("A + B != 5")};  // excludes (3, 2): five valid configurations
  const SearchSpace space(spec);
  std::set<std::string> seen;
  std::mt19937_64 rng(9);
  const auto init = initial_candidates(space, 3, kTemplate, 0, seen, rng);
  ASSERT_EQ(init.size(), 3u);
  const auto children = breed(space, as_members(init), 10, SearchSpec{}, kTemplate, 1, 0, seen, rng);
  EXPECT_EQ(children.size(), 2u);  // only two configurations were left
  for (const jobs::Candidate& c : children) EXPECT_TRUE(space.contains(c.genome));
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_TRUE(breed(space, as_members(init), 4, SearchSpec{}, kTemplate, 2, 0, seen, rng).empty());
  EXPECT_TRUE(initial_candidates(space, 4, kTemplate, 0, seen, rng).empty());
}

TEST(InitialCandidates, AskingForMoreThanTheSpaceHoldsReturnsAllOfIt) {
  SpaceSpec spec;
  spec.parameters = {int_parameter("A", {1, 2, 3, 4})};
  const SearchSpace space(spec);
  std::set<std::string> seen;
  std::mt19937_64 rng(4);
  EXPECT_EQ(initial_candidates(space, 50, kTemplate, 0, seen, rng).size(), 4u);
}

TEST(InitialCandidates, UnsatisfiableSpaceIsAnErrorNotAnEmptyPopulation) {
  SpaceSpec spec;
  spec.parameters = {int_parameter("A", {1, 2, 3, 4})};
  spec.constraints = {constraint("A > 4")};
  const SearchSpace space(spec);
  std::set<std::string> seen;
  std::mt19937_64 rng(4);
  EXPECT_THROW(initial_candidates(space, 2, kTemplate, 0, seen, rng), std::runtime_error);
}

}  // namespace
}  // namespace kforge::scheduler
