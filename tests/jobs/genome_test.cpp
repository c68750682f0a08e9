// Genome canonical text: the candidate id hashes it, so it must be deterministic and round-trip exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kforge/jobs/genome.hpp"

using kforge::jobs::Genome;
using kforge::jobs::ParamValue;

TEST(JobsGenome, CanonicalTextIsSortedAndTyped) {
  Genome g;
  g.params["order"] = std::string("ikj");
  g.params["MC"] = std::int64_t{64};
  g.params["KC"] = std::int64_t{256};
  g.params["alpha"] = 1.0;
  EXPECT_EQ(g.to_text(), "KC=256;MC=64;alpha=1.0;order=\"ikj\"");
}

TEST(JobsGenome, RoundTripsQuotesBackslashesSeparatorsAndDoubles) {
  Genome g;
  g.params["s"] = std::string("a \"quoted\" \\path\\; x=y");
  g.params["empty"] = std::string();
  g.params["third"] = 1.0 / 3.0;
  g.params["tiny"] = 5e-324;
  g.params["big"] = -1.7976931348623157e308;
  g.params["inf"] = std::numeric_limits<double>::infinity();
  g.params["neg"] = std::int64_t{-9223372036854775807LL - 1};
  Genome back = Genome::from_text(g.to_text());
  EXPECT_EQ(back, g);
  EXPECT_EQ(back.to_text(), g.to_text());
}

TEST(JobsGenome, NanRoundTripsAsDouble) {
  Genome g;
  g.params["x"] = std::nan("");
  EXPECT_EQ(g.to_text(), "x=nan");
  Genome back = Genome::from_text("x=nan");
  EXPECT_TRUE(std::isnan(back.get_double("x")));
}

TEST(JobsGenome, ValueTextKeepsTheType) {
  EXPECT_EQ(kforge::jobs::to_text(ParamValue{2.0}), "2.0");
  EXPECT_EQ(kforge::jobs::to_text(ParamValue{1e100}), "1e+100");
  EXPECT_EQ(kforge::jobs::to_text(ParamValue{std::int64_t{2}}), "2");
  EXPECT_TRUE(std::holds_alternative<double>(kforge::jobs::parse_param_value("2.0")));
  EXPECT_TRUE(std::holds_alternative<std::int64_t>(kforge::jobs::parse_param_value("2")));
  EXPECT_EQ(std::get<double>(kforge::jobs::parse_param_value("0.10000000000000001")), 0.1);
}

TEST(JobsGenome, EmptyGenomeIsEmptyText) {
  EXPECT_EQ(Genome{}.to_text(), "");
  EXPECT_TRUE(Genome::from_text("").params.empty());
}

TEST(JobsGenome, MalformedTextIsRejected) {
  for (const char* bad : {"KC", "KC=", "KC=12x", "s=\"open", "s=\"a\"b", "a=1;", "a=1;a=2", "=1", "s=\"\\n\""})
    EXPECT_THROW(Genome::from_text(bad), std::invalid_argument) << bad;
}

TEST(JobsGenome, TypedGettersCheckTypes) {
  Genome g = Genome::from_text("KC=256;alpha=0.5;order=\"ikj\"");
  EXPECT_EQ(g.get_int("KC"), 256);
  EXPECT_EQ(g.get_double("KC"), 256.0);
  EXPECT_EQ(g.get_double("alpha"), 0.5);
  EXPECT_EQ(g.get_string("order"), "ikj");
  EXPECT_THROW(g.get_int("alpha"), std::invalid_argument);
  EXPECT_THROW(g.get_string("KC"), std::invalid_argument);
  EXPECT_THROW(g.get_int("missing"), std::invalid_argument);
  EXPECT_TRUE(g.has("KC"));
  EXPECT_FALSE(g.has("MC"));
}
