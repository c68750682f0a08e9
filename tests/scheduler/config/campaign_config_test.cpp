// Valid campaign files parse into the values they say, and absent keys take the defaults of the structs.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include "config_test_util.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {
namespace {

using test::kMinimalCampaign;
const std::string kExample = std::string(KFORGE_SOURCE_DIR) + "/share/examples/gemm-host.yaml";

TEST(CampaignConfig, ExampleGemmHostParsesCampaignAndSpace) {
  CampaignConfig c = load_campaign(kExample);
  EXPECT_EQ(c.file, kExample);
  EXPECT_NE(c.text.find("gemm-host"), std::string::npos);
  EXPECT_EQ(c.name, "gemm-host");
  EXPECT_EQ(c.family, "gemm");
  EXPECT_EQ(c.backend, "host");
  EXPECT_EQ(c.targets, std::vector<std::string>{"host"});
  EXPECT_EQ(c.compile_flags, "");
  ASSERT_EQ(c.space.parameters.size(), 9u);
  EXPECT_EQ(c.space.parameters[0].name, "MC");  // source order, not sorted
  EXPECT_EQ(c.space.parameters[0].where.line, 13);
  EXPECT_EQ(c.space.parameters[0].where.column, 5);
  EXPECT_EQ(c.space.parameters[0].values.size(), 8u);
  EXPECT_EQ(c.space.parameters[0].values[0], jobs::ParamValue(std::int64_t{16}));
  EXPECT_EQ(c.space.parameters[8].name, "LOOP_ORDER");
  EXPECT_EQ(c.space.parameters[8].values[2], jobs::ParamValue(std::string("jip")));
  ASSERT_EQ(c.space.constraints.size(), 4u);
  EXPECT_EQ(c.space.constraints[0].expression, "NR % VEC == 0");
  EXPECT_EQ(c.space.constraints[0].where.file, kExample);
  EXPECT_EQ(c.space.constraints[0].where.line, 23);
  EXPECT_EQ(c.space.constraints[0].where.column, 7);
  EXPECT_EQ(c.space.constraints[3].expression, "MR * (NR / VEC) <= 32");
}

TEST(CampaignConfig, ExampleGemmHostParsesSearchAndEvaluation) {
  CampaignConfig c = load_campaign(kExample);
  EXPECT_EQ(c.search.generations, 5);
  EXPECT_EQ(c.search.population, 16);
  EXPECT_EQ(c.search.offspring, 16);
  EXPECT_EQ(c.search.elite, 2);
  EXPECT_EQ(c.search.tournament, 3);
  EXPECT_DOUBLE_EQ(c.search.mutation_rate, 0.6);
  EXPECT_DOUBLE_EQ(c.search.crossover_rate, 0.3);
  EXPECT_EQ(c.search.seed, 42u);
  EXPECT_EQ(c.eval.problem, (std::map<std::string, std::int64_t>{{"K", 384}, {"M", 384}, {"N", 384}}));
  EXPECT_EQ(c.eval.baselines, (std::vector<std::string>{"reference", "openblas"}));
  EXPECT_DOUBLE_EQ(c.eval.wall_timeout_s, 20.0);
  EXPECT_DOUBLE_EQ(c.eval.cpu_limit_s, 40.0);
  EXPECT_EQ(c.eval.memory_limit_mb, 2048);
  EXPECT_EQ(c.eval.file_limit_mb, 64);
  EXPECT_DOUBLE_EQ(c.eval.compile_timeout_s, 60.0);
  EXPECT_EQ(c.eval.warmup, 1);
  EXPECT_EQ(c.eval.min_repeats, 3);
  EXPECT_EQ(c.eval.max_repeats, 15);
  EXPECT_DOUBLE_EQ(c.eval.target_spread, 0.05);
  EXPECT_DOUBLE_EQ(c.eval.time_cap_s, 0.5);
  EXPECT_EQ(c.eval.compiler, "c++");
  EXPECT_EQ(c.eval.compile_flags, "-O3 -march=native");
  EXPECT_FALSE(c.eval.compile_only);
  EXPECT_EQ(c.candidates_per_rank, 4);
}

TEST(CampaignConfig, AbsentKeysTakeTheStructDefaults) {
  CampaignConfig c = parse_campaign(kMinimalCampaign, "c.yaml");
  EXPECT_EQ(c.targets, std::vector<std::string>{"host"});  // host backend, targets left out
  EXPECT_TRUE(c.space.constraints.empty());
  EXPECT_EQ(c.search.generations, SearchSpec{}.generations);
  EXPECT_EQ(c.search.population, SearchSpec{}.population);
  EXPECT_EQ(c.search.seed, SearchSpec{}.seed);
  EXPECT_DOUBLE_EQ(c.search.mutation_rate, SearchSpec{}.mutation_rate);
  EXPECT_EQ(c.eval, jobs::EvalSettings{});
  EXPECT_EQ(c.candidates_per_rank, CampaignConfig{}.candidates_per_rank);
}

TEST(CampaignConfig, ParameterValuesKeepTheirYamlTypeAndOrder) {
  CampaignConfig c = parse_campaign(
      "campaign: {name: t.1_x-y, family: gemm, backend: host}\n"
      "space:\n"
      "  parameters:\n"
      "    Z: [8, -3, 2.5, 1e3, abc, '16', \"x y\", true]\n",
      "c.yaml");
  ASSERT_EQ(c.space.parameters.size(), 1u);
  const auto& v = c.space.parameters[0].values;
  ASSERT_EQ(v.size(), 8u);
  EXPECT_EQ(v[0], jobs::ParamValue(std::int64_t{8}));
  EXPECT_EQ(v[1], jobs::ParamValue(std::int64_t{-3}));
  EXPECT_EQ(v[2], jobs::ParamValue(2.5));
  EXPECT_EQ(v[3], jobs::ParamValue(1000.0));
  EXPECT_EQ(v[4], jobs::ParamValue(std::string("abc")));
  EXPECT_EQ(v[5], jobs::ParamValue(std::string("16")));  // quoted: the user said string
  EXPECT_EQ(v[6], jobs::ParamValue(std::string("x y")));
  EXPECT_EQ(v[7], jobs::ParamValue(std::string("true")));
  EXPECT_EQ(c.name, "t.1_x-y");
}

TEST(CampaignConfig, CudaBackendKeepsItsTargetsInOrder) {
  CampaignConfig c = parse_campaign(
      "campaign: {name: g, family: gemm, backend: cuda, targets: [hopper, blackwell], compile_flags: -lineinfo}\n"
      "space: {parameters: {BM: [64, 128]}}\n",
      "c.yaml");
  EXPECT_EQ(c.targets, (std::vector<std::string>{"hopper", "blackwell"}));
  EXPECT_EQ(c.compile_flags, "-lineinfo");
}

TEST(CampaignConfig, SeedAcceptsTheFullUnsignedRange) {
  CampaignConfig c = parse_campaign(kMinimalCampaign + "search: {seed: 18446744073709551615}\n", "c.yaml");
  EXPECT_EQ(c.search.seed, UINT64_MAX);
}

TEST(CampaignConfig, RatesSummingToExactlyOneAreAccepted) {
  CampaignConfig c = parse_campaign(kMinimalCampaign + "search: {mutation_rate: 0.7, crossover_rate: 0.3}\n", "c.yaml");
  EXPECT_DOUBLE_EQ(c.search.mutation_rate + c.search.crossover_rate, 1.0);
}

TEST(CampaignConfig, EvaluationKeysMapOntoEvalSettings) {
  CampaignConfig c = parse_campaign(kMinimalCampaign +
                                        "evaluation:\n"
                                        "  timeout_s: 7\n"
                                        "  compile_only: true\n"
                                        "  compile_flags: \"\"\n"
                                        "  candidates_per_rank: 9\n",
                                    "c.yaml");
  EXPECT_DOUBLE_EQ(c.eval.wall_timeout_s, 7.0);
  EXPECT_TRUE(c.eval.compile_only);
  EXPECT_EQ(c.eval.compile_flags, "");
  EXPECT_EQ(c.candidates_per_rank, 9);
}

TEST(CampaignConfig, ReplayCacheIsResolvedAgainstTheCampaignFileAndMustExist) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kforge-replay-cache-test";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "space.json.gz") << "x"; }
  const std::string yaml =
      "campaign: {name: r, family: conv, backend: replay, targets: [a100]}\n"
      "space:\n  parameters:\n    x: [1, 2]\n"
      "evaluation:\n  replay_cache: space.json.gz\n  max_spill_bytes: 64\n";
  const CampaignConfig c = parse_campaign(yaml, dir / "c.yaml");
  EXPECT_EQ(c.eval.replay_cache, (dir / "space.json.gz").string());
  EXPECT_EQ(c.eval.max_spill_bytes, 64);
  std::string missing = yaml;
  missing.replace(missing.find("space.json.gz"), 13, "nothere.json");
  try {
    parse_campaign(missing, dir / "c.yaml");
    FAIL() << "a missing replay cache was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(":6:17: evaluation.replay_cache: no such file: "), std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(CampaignConfig, AgentsParseWithTheirCommandResolvedNextToTheCampaignFile) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kforge-agents-config-test";
  std::filesystem::create_directories(dir / "agents");
  { std::ofstream(dir / "agents" / "a.py") << "pass\n"; }
  const std::string yaml =
      std::string(kMinimalCampaign) +
      "agents:\n  - {name: rw, command: [python3, agents/a.py, --flag], weight: 0.5, timeout_s: 9}\n";
  const CampaignConfig c = parse_campaign(yaml, dir / "c.yaml");
  ASSERT_EQ(c.agents.size(), 1u);
  EXPECT_EQ(c.agents[0].name, "rw");
  EXPECT_EQ(c.agents[0].command, (std::vector<std::string>{"python3", (dir / "agents" / "a.py").string(), "--flag"}));
  EXPECT_DOUBLE_EQ(c.agents[0].weight, 0.5);
  EXPECT_DOUBLE_EQ(c.agents[0].timeout_s, 9.0);
  std::filesystem::remove_all(dir);
}

TEST(CampaignErrors, AgentsWithoutCommandOrWithAWeightOutOfRangeNameTheKey) {
  const std::string missing = std::string(kMinimalCampaign) + "agents:\n  - {name: rw}\n";
  try {
    parse_campaign(missing, "c.yaml");
    FAIL() << "an agent without a command was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("agents[0].command: missing required key"), std::string::npos) << e.what();
  }
  const std::string heavy = std::string(kMinimalCampaign) + "agents:\n  - {name: rw, command: [x], weight: 1.5}\n";
  try {
    parse_campaign(heavy, "c.yaml");
    FAIL() << "weight 1.5 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("agents[0].weight"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kforge::scheduler
