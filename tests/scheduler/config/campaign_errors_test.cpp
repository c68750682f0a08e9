// Every class of campaign error, asserting the full message: FILE:LINE:COLUMN: key: problem (allowed).
#include <gtest/gtest.h>

#include <string>

#include "config_test_util.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {
namespace {

using test::campaign_error;
using test::kMinimalCampaign;

const std::string kSearchKeys =
    "allowed keys: generations, population, offspring, elite, tournament, mutation_rate, crossover_rate, seed, "
    "migration_interval, migration_size, strategy, adaptive_operators, min_operator_share, prior, initial";
const std::string kValuesAllowed = "(a non-empty list of distinct values, e.g. [16, 32, 64])";

// The minimal campaign with its MC line (line 7) replaced.
std::string with_mc_line(const std::string& line) {
  std::string yaml = kMinimalCampaign;
  return yaml.replace(yaml.find("    MC: [16, 32]\n"), 17, line + "\n");
}

TEST(CampaignErrors, UnknownTopLevelKeyListsTheSections) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "serch:\n  population: 4\n"),
            "c.yaml:8:1: serch: unknown key (allowed keys: campaign, space, search, evaluation, agents, model, "
            "workload, engine)");
}

TEST(CampaignErrors, UnknownNestedKeyNamesItsDottedPath) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  populaton: 4\n"),
            "c.yaml:9:3: search.populaton: unknown key (" + kSearchKeys + ")");
}

TEST(CampaignErrors, DuplicateKeyIsRejected) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  seed: 1\n  seed: 2\n"),
            "c.yaml:10:3: search.seed: duplicate key (each key at most once)");
}

TEST(CampaignErrors, WrongTypeQuotesWhatWasWritten) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  population: abc\n"),
            "c.yaml:9:15: search.population: expected an integer, got 'abc' (an integer in [2, 65536], per island)");
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  population: [4]\n"),
            "c.yaml:9:15: search.population: expected an integer, got a list (an integer in [2, 65536], per island)");
  EXPECT_EQ(campaign_error(kMinimalCampaign + "evaluation:\n  compile_only: yes\n"),
            "c.yaml:9:17: evaluation.compile_only: expected true or false, got 'yes' (true or false)");
}

TEST(CampaignErrors, OutOfRangeStatesTheRange) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  generations: 0\n"),
            "c.yaml:9:16: search.generations: 0 is out of range (an integer >= 1)");
  EXPECT_EQ(campaign_error(kMinimalCampaign + "evaluation:\n  target_spread: 1\n"),
            "c.yaml:9:18: evaluation.target_spread: 1 is out of range (a number in (0, 1))");
  EXPECT_EQ(campaign_error(kMinimalCampaign + "evaluation:\n  timeout_s: -2.5\n"),
            "c.yaml:9:14: evaluation.timeout_s: -2.5 is out of range (a number of seconds > 0 and <= 1e+06)");
}

TEST(CampaignErrors, MinRepeatsAboveMaxRepeats) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "evaluation:\n  min_repeats: 10\n  max_repeats: 5\n"),
            "c.yaml:9:16: evaluation.min_repeats: min_repeats 10 is greater than max_repeats 5 "
            "(min_repeats <= max_repeats)");
}

TEST(CampaignErrors, RatesSummingAboveOne) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  mutation_rate: 0.8\n  crossover_rate: 0.3\n"),
            "c.yaml:10:19: search.crossover_rate: mutation_rate + crossover_rate = 1.1 exceeds 1 "
            "(mutation_rate + crossover_rate <= 1; the rest are random immigrants)");
}

TEST(CampaignErrors, OperatorAdaptationKeysAreChecked) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  min_operator_share: 0.5\n"),
            "c.yaml:9:23: search.min_operator_share: 0.5 is out of range (a number in [0, 0.2])");
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  strategy: annealing\n"),
            "c.yaml:9:13: search.strategy: unknown strategy 'annealing' (one of: evolutionary, surrogate, random)");
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  adaptive_operators: maybe\n"),
            "c.yaml:9:23: search.adaptive_operators: expected true or false, got 'maybe' (true or false)");
}

TEST(CampaignErrors, EliteNotBelowPopulation) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  population: 4\n  elite: 4\n"),
            "c.yaml:10:10: search.elite: 4 is out of range (an integer in [0, 3], below search.population)");
  // The default elite (2) does not fit a population of 2 either; the message points at the search section.
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search:\n  population: 2\n"),
            "c.yaml:9:3: search.elite: elite 2 is not below population 2 (an integer in [0, 1], below "
            "search.population)");
}

TEST(CampaignErrors, TournamentLargerThanPopulation) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search: {population: 3, elite: 1, tournament: 4}\n"),
            "c.yaml:8:47: search.tournament: 4 is out of range (an integer in [1, 3], at most search.population)");
}

TEST(CampaignErrors, UnknownBackend) {
  std::string yaml = kMinimalCampaign;
  yaml.replace(yaml.find("backend: host"), 13, "backend: gpu");
  EXPECT_EQ(campaign_error(yaml), "c.yaml:4:12: campaign.backend: unknown backend 'gpu' (one of: host, cuda, replay)");
}

TEST(CampaignErrors, HostBackendTargetThatIsNotAnIdentifier) {
  std::string yaml = kMinimalCampaign;
  yaml.replace(yaml.find("  backend: host\n"), 16, "  backend: host\n  targets: [hopper, \"blackwell b\"]\n");
  const std::string error = campaign_error(yaml);
  EXPECT_EQ(error.rfind("c.yaml:5:", 0), 0u) << error;
  EXPECT_NE(error.find("campaign.targets"), std::string::npos) << error;
  EXPECT_NE(error.find("blackwell b"), std::string::npos) << error;
}

TEST(CampaignErrors, CudaBackendWithoutTargets) {
  std::string yaml = kMinimalCampaign;
  yaml.replace(yaml.find("backend: host"), 13, "backend: cuda");
  EXPECT_EQ(campaign_error(yaml),
            "c.yaml:2:3: campaign.targets: missing required key (backend cuda needs a non-empty list of distinct "
            "target names, e.g. [hopper, blackwell])");
}

TEST(CampaignErrors, MissingRequiredKey) {
  std::string yaml = kMinimalCampaign;
  yaml.erase(yaml.find("  name: t\n"), 10);
  EXPECT_EQ(campaign_error(yaml),
            "c.yaml:2:3: campaign.name: missing required key "
            "(a safe file name: letters, digits, '.', '_', '-')");
  EXPECT_EQ(campaign_error("campaign: {name: t, family: gemm, backend: host}\n"),
            "c.yaml:1:1: space: missing required key (a mapping with keys: parameters, constraints)");
}

TEST(CampaignErrors, UnsafeCampaignNameAndBadFamily) {
  std::string yaml = kMinimalCampaign;
  yaml.replace(yaml.find("name: t"), 7, "name: ../x");
  EXPECT_EQ(campaign_error(yaml),
            "c.yaml:2:9: campaign.name: '../x' is not a safe file name "
            "(a safe file name: letters, digits, '.', '_', '-')");
  yaml = kMinimalCampaign;
  yaml.replace(yaml.find("family: gemm"), 12, "family: 2mm");
  EXPECT_EQ(campaign_error(yaml),
            "c.yaml:3:11: campaign.family: '2mm' is not an identifier "
            "(an identifier [A-Za-z_][A-Za-z0-9_]*, e.g. gemm)");
}

TEST(CampaignErrors, DuplicateParameterValue) {
  EXPECT_EQ(campaign_error(with_mc_line("    MC: [16, 32, 16]")),
            "c.yaml:7:18: space.parameters.MC: duplicate value 16 " + kValuesAllowed);
  EXPECT_EQ(campaign_error(with_mc_line("    MC: [1, 1.0]")),  // the same setting for a kernel
            "c.yaml:7:13: space.parameters.MC: duplicate value 1.0 " + kValuesAllowed);
}

TEST(CampaignErrors, EmptyParameterValues) {
  EXPECT_EQ(campaign_error(with_mc_line("    MC: []")),
            "c.yaml:7:9: space.parameters.MC: empty list of values " + kValuesAllowed);
  EXPECT_EQ(campaign_error(with_mc_line("    MC: 16")),
            "c.yaml:7:9: space.parameters.MC: expected a list of values, got '16' " + kValuesAllowed);
}

TEST(CampaignErrors, ParameterNameMustBeAnIdentifier) {
  EXPECT_EQ(campaign_error(with_mc_line("    M-C: [1]")),
            "c.yaml:7:5: space.parameters.M-C: 'M-C' is not an identifier "
            "(a parameter name [A-Za-z_][A-Za-z0-9_]*, e.g. MC)");
}

TEST(CampaignErrors, EmptyParameterMapping) {
  EXPECT_EQ(campaign_error(with_mc_line("    {}")),
            "c.yaml:7:5: space.parameters: no parameters (a mapping NAME: [values] with at least one parameter)");
}

TEST(CampaignErrors, YamlSyntaxError) {
  EXPECT_EQ(campaign_error(kMinimalCampaign + "search: population: 4\n"),
            "c.yaml:8:19: <yaml>: illegal map value (valid YAML)");
}

TEST(CampaignErrors, DocumentThatIsNotAMapping) {
  EXPECT_EQ(campaign_error("just text\n"),
            "c.yaml:1:1: <document>: expected a mapping, got 'just text' "
            "(a mapping with keys: campaign, space, search, evaluation, agents, model, workload, engine)");
}

TEST(CampaignErrors, MissingFile) {
  EXPECT_EQ(test::config_error_of([] { load_campaign("/nonexistent/kforge/c.yaml"); }),
            "/nonexistent/kforge/c.yaml:1:1: <file>: cannot read: No such file or directory (a readable YAML file)");
}

TEST(CampaignErrors, ErrorCarriesKeyAndLocation) {
  try {
    parse_campaign(kMinimalCampaign + "search:\n  generations: 0\n", "c.yaml");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "search.generations");
    EXPECT_EQ(e.where().file, "c.yaml");
    EXPECT_EQ(e.where().line, 9);
    EXPECT_EQ(e.where().column, 16);
  }
}

}  // namespace
}  // namespace kforge::scheduler
