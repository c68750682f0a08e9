// SearchSpace: constraint errors become located ConfigErrors; membership; random genomes; size.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "gemm_host_space.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {
namespace {

using testing::constraint;
using testing::gemm_host_space;
using testing::int_parameter;

jobs::Genome valid_gemm_genome() {
  jobs::Genome g;
  g.params = {{"MC", std::int64_t{64}},    {"NC", std::int64_t{256}}, {"KC", std::int64_t{128}},
              {"MR", std::int64_t{4}},     {"NR", std::int64_t{16}},  {"VEC", std::int64_t{8}},
              {"UNROLL", std::int64_t{4}}, {"PACK", std::int64_t{1}}, {"LOOP_ORDER", std::string("jpi")}};
  return g;
}

TEST(SearchSpace, UnknownNameInAConstraintIsAConfigErrorAtItsLocation) {
  SpaceSpec spec = gemm_host_space();
  spec.constraints.push_back(ConstraintSpec{"MC % MRR == 0", SourceLocation{"runs/gemm.yaml", 28, 7}});
  try {
    SearchSpace space(spec);
    FAIL() << "accepted a constraint naming an unknown parameter";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.key(), "space.constraints[4]");
    EXPECT_EQ(e.where().line, 28);
    EXPECT_NE(what.find("runs/gemm.yaml:28:7"), std::string::npos) << what;
    EXPECT_NE(what.find("MRR"), std::string::npos) << what;
    EXPECT_NE(what.find("column 6"), std::string::npos) << what;
    EXPECT_NE(what.find("LOOP_ORDER"), std::string::npos) << what;  // the allowed names are listed
  }
}

TEST(SearchSpace, SyntaxErrorInAConstraintIsAConfigErrorNamingTheColumn) {
  SpaceSpec spec = gemm_host_space();
  spec.constraints[1] = constraint("MC %% MR == 0", 25, 7);
  try {
    SearchSpace space(spec);
    FAIL() << "accepted a malformed constraint";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "space.constraints[1]");
    EXPECT_NE(std::string(e.what()).find("column 5"), std::string::npos) << e.what();
  }
}

TEST(SearchSpace, ContainsAcceptsValidAndRejectsInvalidGenomes) {
  const SearchSpace space(gemm_host_space());
  const jobs::Genome ok = valid_gemm_genome();
  EXPECT_TRUE(space.contains(ok));

  jobs::Genome broken = ok;
  broken.params["VEC"] = std::int64_t{4};
  broken.params["NR"] = std::int64_t{24};
  broken.params["MR"] = std::int64_t{8};  // 8 * (24 / 4) = 48 > 32 accumulators
  EXPECT_FALSE(space.contains(broken));

  jobs::Genome off_list = ok;
  off_list.params["MC"] = std::int64_t{65};  // not one of MC's values
  EXPECT_FALSE(space.contains(off_list));

  jobs::Genome wrong_kind = ok;
  wrong_kind.params["MC"] = 64.0;  // a double is not the listed integer
  EXPECT_FALSE(space.contains(wrong_kind));

  jobs::Genome missing = ok;
  missing.params.erase("PACK");
  EXPECT_FALSE(space.contains(missing));

  jobs::Genome extra = ok;
  extra.params["EXTRA"] = std::int64_t{1};
  EXPECT_FALSE(space.contains(extra));
}

TEST(SearchSpace, RandomGenomesSatisfyEveryConstraint) {
  const SearchSpace space(gemm_host_space());
  std::mt19937_64 rng(7);
  std::set<std::string> distinct;
  for (int i = 0; i < 300; ++i) {
    const jobs::Genome g = space.random_genome(rng);
    ASSERT_TRUE(space.contains(g)) << g.to_text();
    EXPECT_EQ(g.get_int("NR") % g.get_int("VEC"), 0) << g.to_text();
    EXPECT_EQ(g.get_int("MC") % g.get_int("MR"), 0) << g.to_text();
    EXPECT_LE(g.get_int("MR") * g.get_int("NR") / g.get_int("VEC"), 32) << g.to_text();
    distinct.insert(g.to_text());
  }
  EXPECT_GT(distinct.size(), 250u);  // the space has thousands of valid points; draws should rarely repeat
}

TEST(SearchSpace, RandomGenomeIsDeterministicForASeed) {
  const SearchSpace space(gemm_host_space());
  std::mt19937_64 a(99);
  std::mt19937_64 b(99);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(space.random_genome(a), space.random_genome(b));
}

TEST(SearchSpace, UnsatisfiableConstraintsThrowSayingSo) {
  SpaceSpec spec;
  spec.parameters = {int_parameter("A", {1, 2, 3})};
  spec.constraints = {constraint("A > 10")};
  const SearchSpace space(spec);
  std::mt19937_64 rng(1);
  try {
    space.random_genome(rng);
    FAIL() << "drew a genome from an empty space";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("unsatisfiable"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("A > 10"), std::string::npos) << e.what();
  }
}

TEST(SearchSpace, DivisionByZeroInAConstraintRejectsTheConfiguration) {
  SpaceSpec spec;
  spec.parameters = {int_parameter("A", {0, 2}), int_parameter("B", {4})};
  spec.constraints = {constraint("B % A == 0")};
  const SearchSpace space(spec);
  jobs::Genome zero;
  zero.params = {{"A", std::int64_t{0}}, {"B", std::int64_t{4}}};
  jobs::Genome two;
  two.params = {{"A", std::int64_t{2}}, {"B", std::int64_t{4}}};
  EXPECT_FALSE(space.contains(zero));
  EXPECT_TRUE(space.contains(two));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(space.random_genome(rng), two);
}

TEST(SearchSpace, CardinalityIsTheProductOfTheListSizes) {
  EXPECT_DOUBLE_EQ(SearchSpace(gemm_host_space()).cardinality(), 8.0 * 5 * 7 * 6 * 5 * 3 * 4 * 2 * 3);
}

TEST(SearchSpace, EmptyValueListIsAConfigError) {
  SpaceSpec spec;
  spec.parameters = {int_parameter("A", {})};
  EXPECT_THROW(SearchSpace{spec}, ConfigError);
}

}  // namespace
}  // namespace kforge::scheduler
