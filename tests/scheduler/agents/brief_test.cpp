// The brief written as YAML (and its JSON twin) reads back with the same content.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent_test_support.hpp"
#include "kforge/jobs/text_file.hpp"

namespace kforge::scheduler {
namespace {

TEST(AgentBrief, YamlRoundTripKeepsEveryField) {
  const AgentBrief brief = testing::small_brief();
  const AgentBrief back = parse_brief(brief_to_yaml(brief));
  EXPECT_EQ(back.campaign, brief.campaign);
  EXPECT_EQ(back.family, brief.family);
  EXPECT_EQ(back.backend, brief.backend);
  EXPECT_EQ(back.target, brief.target);
  EXPECT_EQ(back.generation, 3);
  EXPECT_EQ(back.island, 1);
  EXPECT_EQ(back.children_wanted, 2);
  EXPECT_EQ(back.lessons, brief.lessons);
  ASSERT_EQ(back.parents.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& want = brief.parents[i];
    const auto& got = back.parents[i];
    EXPECT_EQ(got.candidate.id, want.candidate.id);
    EXPECT_EQ(got.candidate.op, want.candidate.op);
    EXPECT_EQ(got.candidate.genome, want.candidate.genome) << got.candidate.genome.to_text();
    EXPECT_EQ(got.candidate.source, want.candidate.source);
    EXPECT_EQ(got.record.status, want.record.status);
    EXPECT_EQ(got.record.evidence, want.record.evidence);
  }
  EXPECT_DOUBLE_EQ(back.parents[0].record.time_median_ms, 1.25);
  EXPECT_DOUBLE_EQ(back.parents[0].record.speedup, 3.5);
  EXPECT_TRUE(std::isnan(back.parents[1].record.time_median_ms));
}

TEST(AgentBrief, SpaceKeepsValueTypesAndConstraints) {
  const AgentBrief back = parse_brief(brief_to_yaml(testing::small_brief()));
  ASSERT_EQ(back.space.parameters.size(), 3U);
  EXPECT_EQ(back.space.parameters[0].values[2], jobs::ParamValue{std::int64_t{64}});
  EXPECT_EQ(back.space.parameters[1].values[0], jobs::ParamValue{std::string("jpi")});
  EXPECT_EQ(back.space.parameters[2].values[1], jobs::ParamValue{1.0});  // a double, not the integer 1
  ASSERT_EQ(back.space.constraints.size(), 1U);
  EXPECT_EQ(back.space.constraints[0].expression, "MC * 2 <= 100");
}

TEST(AgentBrief, SourcesAreLiteralBlocksForPeople) {
  const std::string yaml = brief_to_yaml(testing::small_brief());
  EXPECT_NE(yaml.find("source: |\n      int f() { return 1; }"), std::string::npos) << yaml;
}

TEST(AgentBrief, StringThatLooksLikeANumberStaysAString) {
  AgentBrief brief = testing::small_brief();
  brief.parents[0].candidate.genome.params["ORDER"] = std::string("1");
  const AgentBrief back = parse_brief(brief_to_yaml(brief));
  EXPECT_EQ(back.parents[0].candidate.genome.params.at("ORDER"), jobs::ParamValue{std::string("1")});
}

TEST(AgentBrief, WriteBriefWritesYamlAndAJsonTwinThatYamlCppReads) {
  const auto dir = std::filesystem::path(KFORGE_BINARY_DIR) / "agents-test" / "brief-write";
  std::filesystem::create_directories(dir);
  write_brief(dir / "brief.yaml", testing::small_brief());
  ASSERT_TRUE(std::filesystem::exists(dir / "brief.json"));
  EXPECT_EQ(parse_brief(jobs::read_text_file(dir / "brief.yaml")).parents[1].record.evidence,
            testing::small_brief().parents[1].record.evidence);
  // JSON is YAML: the twin parses with yaml-cpp and has the same source text and an unmeasured time as null.
  const YAML::Node twin = YAML::LoadFile((dir / "brief.json").string());
  EXPECT_EQ(twin["parents"][0]["source"].as<std::string>(), "int f() { return 1; }\n");
  EXPECT_EQ(twin["parents"][1]["record"]["evidence"].as<std::string>(),
            testing::small_brief().parents[1].record.evidence);
  EXPECT_TRUE(twin["parents"][1]["record"]["time_median_ms"].IsNull());
  EXPECT_EQ(twin["space"]["parameters"]["ORDER"][1].as<std::string>(), "pji");
}

TEST(AgentBrief, WriteBriefRefusesAJsonPathItsTwinWouldOverwrite) {
  EXPECT_THROW(write_brief("/tmp/brief.json", testing::small_brief()), std::invalid_argument);
}

TEST(AgentBrief, ParseBriefNamesTheMissingKey) {
  try {
    parse_brief("kforge_agent_brief: 1\ncampaign: x\n");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'family'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kforge::scheduler
