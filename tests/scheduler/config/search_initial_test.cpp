// search.initial: genomes the user already knows, read against the space's value lists and checked against its
// constraints, with the file:line:column of the entry at fault; generation 0 evaluates them first.
#include <gtest/gtest.h>

#include "config_test_util.hpp"
#include "kforge/scheduler/driver/campaign_validation.hpp"
#include "kforge/scheduler/search/population.hpp"

namespace kforge::scheduler {
namespace {

using test::campaign_error;

// The minimal campaign (lines 1-7) with a second parameter; search.initial's entries start at line 10.
const std::string kCampaign = test::kMinimalCampaign + "    VEC: [4, 8]\n" + "search:\n";

TEST(SearchInitial, GenomesAreReadInOrderWithTheSpacesOwnValues) {
  const CampaignConfig c =
      parse_campaign(kCampaign + "  initial:\n    - {MC: 32, VEC: 4}\n    - {VEC: 8.0, MC: 16}\n", "c.yaml");
  ASSERT_EQ(c.search.initial.size(), 2u);
  EXPECT_EQ(c.search.initial[0].genome.to_text(), "MC=32;VEC=4");
  EXPECT_EQ(c.search.initial[1].genome.to_text(), "MC=16;VEC=8");  // 8.0 is the listed 8
  EXPECT_EQ(c.search.initial[1].where.line, 12);
  EXPECT_TRUE(parse_campaign(kCampaign + "  seed: 3\n", "c.yaml").search.initial.empty());
}

TEST(SearchInitial, EachBadEntryIsAnErrorAtItsPlace) {
  EXPECT_EQ(campaign_error(kCampaign + "  initial: {MC: 16}\n"),
            "c.yaml:10:12: search.initial: expected a list, got a mapping (a list of genomes, each a mapping with "
            "one listed value for every parameter of space.parameters)");
  EXPECT_EQ(campaign_error(kCampaign + "  initial: [MC=16]\n"),
            "c.yaml:10:13: search.initial[0]: expected a mapping, got 'MC=16' (a list of genomes, each a mapping "
            "with one listed value for every parameter of space.parameters)");
  EXPECT_EQ(campaign_error(kCampaign + "  initial:\n    - {MC: 16, VEC: 4, NR: 8}\n"),
            "c.yaml:11:24: search.initial[0].NR: unknown key (allowed keys: MC, VEC)");
  EXPECT_EQ(campaign_error(kCampaign + "  initial:\n    - {MC: 16}\n"),
            "c.yaml:11:7: search.initial[0].VEC: missing required key (one of the values space.parameters.VEC "
            "lists)");
  EXPECT_EQ(campaign_error(kCampaign + "  initial:\n    - {MC: 16, VEC: 4}\n    - {MC: 64, VEC: 4}\n"),
            "c.yaml:12:12: search.initial[1].MC: 64 is not a value of space.parameters.MC (one of: 16, 32)");
}

TEST(SearchInitial, AGenomeThatBreaksAConstraintNamesIt) {
  // The gemm host family's parameters, each with a short list; lines 5-16 hold the space.
  const std::string yaml =
      "campaign:\n  name: t\n  family: gemm\n  backend: host\nspace:\n  parameters:\n"
      "    MC: [16, 32]\n    NC: [64]\n    KC: [32]\n    MR: [2, 3]\n    NR: [8]\n"
      "    VEC: [4]\n    UNROLL: [1]\n    PACK: [0]\n    LOOP_ORDER: [jpi]\n"
      "  constraints: [\"NR % VEC == 0\", \"MC % MR == 0\"]\nsearch:\n  initial:\n"
      "    - {MC: 32, NC: 64, KC: 32, MR: 2, NR: 8, VEC: 4, UNROLL: 1, PACK: 0, LOOP_ORDER: jpi}\n"
      "    - {MC: 32, NC: 64, KC: 32, MR: 3, NR: 8, VEC: 4, UNROLL: 1, PACK: 0, LOOP_ORDER: jpi}\n";
  const CampaignConfig c = parse_campaign(yaml, "c.yaml");
  EXPECT_EQ(test::config_error_of([&] { validate_campaign(c, embedded_default_site()); }),
            "c.yaml:20:7: search.initial[1]: KC=32;LOOP_ORDER=\"jpi\";MC=32;MR=3;NC=64;NR=8;PACK=0;UNROLL=1;VEC=4 "
            "breaks the constraint \"MC % MR == 0\" (a genome for which every space.constraints entry holds)");
  CampaignConfig first_only = c;
  first_only.search.initial.pop_back();
  EXPECT_EQ(test::config_error_of([&] { validate_campaign(first_only, embedded_default_site()); }), "no error");
}

TEST(SearchInitial, GenerationZeroStartsWithThemOnEveryIslandAndNeverTwice) {
  const CampaignConfig c =
      parse_campaign(kCampaign + "  initial:\n    - {MC: 32, VEC: 4}\n    - {MC: 16, VEC: 8}\n", "c.yaml");
  const CandidateTemplate tmpl{"gemm", "host", ""};
  for (int island : {0, 1}) {
    std::set<std::string> seen;
    const auto out = initial_genome_candidates(c.search, tmpl, island, seen);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].genome.to_text(), "MC=32;VEC=4");
    EXPECT_EQ(out[0].op, "initial");
    EXPECT_EQ(out[1].island, island);
    EXPECT_TRUE(out[0].parents.empty());
    EXPECT_EQ(seen.size(), 2u);
    EXPECT_TRUE(initial_genome_candidates(c.search, tmpl, island, seen).empty());  // already evaluated
  }
}

}  // namespace
}  // namespace kforge::scheduler
