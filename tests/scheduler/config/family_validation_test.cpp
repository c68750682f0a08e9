// validate_campaign against every family schema, generated from the schema itself: whatever a family publishes
// (parameters, ranges, problem keys, baselines, targets) is what validation accepts, and each way of leaving it
// is a ConfigError at the offending key (exit 2 in the CLI). Also: memory, satisfiability, limits.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config_test_util.hpp"
#include "kforge/kernels/family_schema.hpp"
#include "kforge/scheduler/driver/campaign_validation.hpp"

namespace kforge::scheduler {
namespace {

using kernels::FamilySchema;
using kernels::ParameterSchema;

std::string first_value(const ParameterSchema& p) {
  if (p.type == ParameterSchema::Type::string) return p.string_choices.front();
  return std::to_string(p.int_choices.empty() ? p.min : p.int_choices.front());
}

std::string first_target(const FamilySchema& s) {
  if (s.backend == "host") return "host";
  return s.targets.empty() ? "hopper" : s.targets.front().name;
}

// A campaign of the family with one value per parameter (the schema's first), `extra` appended to the space's
// parameters, and `evaluation` lines.
std::string campaign_of(const FamilySchema& s, const std::string& target, const std::string& extra_params = "",
                        const std::string& evaluation = "", const std::string& skip = "") {
  std::string y = "campaign:\n  name: t\n  family: " + (s.family == "*" ? std::string("gemm") : s.family) +
                  "\n  backend: " + s.backend + "\n  targets: [" + target + "]\nspace:\n  parameters:\n";
  for (const auto& p : s.parameters)
    if (p.name != skip) y += "    " + p.name + ": [" + first_value(p) + "]\n";
  if (s.parameters_from_cache) y += "    X: [1]\n";
  y += extra_params;
  if (s.family == "engine")  // an engine campaign serves a model on a workload (docs/campaign-schema.md)
    y += "model: {architecture: llama, layers: 1, hidden: 32, heads: 2, mlp_hidden: 64, vocab: 64}\n"
         "workload: {requests: 2, prompt_tokens: 4, output_tokens: 2}\n";
  y += "evaluation:\n";
  if (s.parameters_from_cache) y += "  replay_cache: " + std::string(KFORGE_SOURCE_DIR) + "/README.md\n";
  return y + evaluation;
}

std::string validation_error(const std::string& yaml, const SiteConfig& site = embedded_default_site()) {
  return test::config_error_of([&] { validate_campaign(parse_campaign(yaml, "c.yaml"), site); });
}

// "c.yaml:L:C: KEY: ..." -> KEY
std::string key_of(const std::string& error) {
  const std::size_t start = error.find(": ") + 2;
  return error.substr(start, error.find(": ", start) - start);
}

std::string test_slurp(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

SiteConfig slurm_site() {
  return parse_site(
      "site:\n  name: s\n  executor: slurm\nslurm:\n  targets:\n    hopper: {partition: h}\n"
      "    blackwell: {partition: b}\n",
      "s.yaml");
}

TEST(FamilySchemaValidation, EveryFamilyAcceptsItsOwnSchema) {
  for (const auto& s : kernels::family_schemas()) {
    SCOPED_TRACE(s.pair());
    EXPECT_EQ(validation_error(campaign_of(s, first_target(s))), "no error");
  }
}

TEST(FamilySchemaValidation, UnknownFamilyOfEveryBackendNamesTheKnownPairs) {
  for (const std::string backend : {"host", "cuda"}) {
    const std::string yaml = "campaign:\n  name: t\n  family: nosuch\n  backend: " + backend + "\n  targets: [" +
                             (backend == "host" ? "host" : "hopper") + "]\nspace:\n  parameters:\n    A: [1]\n";
    const std::string error = validation_error(yaml);
    EXPECT_EQ(error.rfind("c.yaml:3:11: campaign.family: backend " + backend + " has no family 'nosuch'", 0), 0u)
        << error;
    EXPECT_NE(error.find(kernels::known_family_pairs()), std::string::npos) << error;
  }
}

TEST(FamilySchemaValidation, EveryMissingParameterIsNamedAndOptionalOnesMayBeLeftOut) {
  for (const auto& s : kernels::family_schemas()) {
    for (const auto& p : s.parameters) {
      SCOPED_TRACE(s.pair() + " " + p.name);
      const std::string error = validation_error(campaign_of(s, first_target(s), "", "", p.name));
      if (p.optional()) {  // the template's default stands in (e.g. the host engine's KDA_*)
        EXPECT_EQ(error, "no error") << error;
        continue;
      }
      EXPECT_EQ(key_of(error), "space.parameters") << error;
      EXPECT_NE(error.find("needs parameter(s) " + p.name + " "), std::string::npos) << error;
    }
  }
}

TEST(FamilySchemaValidation, EveryParameterRejectsWrongTypesAndValuesOutsideItsRange) {
  for (const auto& s : kernels::family_schemas()) {
    for (std::size_t i = 0; i < s.parameters.size(); ++i) {
      const ParameterSchema& p = s.parameters[i];
      SCOPED_TRACE(s.pair() + " " + p.name);
      std::vector<std::string> bad = {"2.5", "[1]"};
      if (p.type == ParameterSchema::Type::string) {
        bad = {"7", "nosuch_value"};
      } else {
        bad.push_back("word");
        bad.push_back(std::to_string(p.max + 1));
        bad.push_back(std::to_string(p.min - 1));
      }
      for (const auto& value : bad) {
        std::string yaml = campaign_of(s, first_target(s));
        const std::string line = "    " + p.name + ": [" + first_value(p) + "]\n";
        yaml.replace(yaml.find(line), line.size(), "    " + p.name + ": [" + first_value(p) + ", " + value + "]\n");
        const std::string error = validation_error(yaml);
        if (value == "[1]") {  // not a scalar: the parser refuses it already
          EXPECT_EQ(key_of(error), "space.parameters." + p.name) << error;
          continue;
        }
        // Line 8 + i, the column of the second value.
        const std::string at =
            "c.yaml:" + std::to_string(8 + i) + ":" + std::to_string(10 + p.name.size() + first_value(p).size());
        EXPECT_EQ(error.rfind(at + ": space.parameters." + p.name + "[1]: ", 0), 0u) << value << ": " << error;
        EXPECT_NE(error.find(p.allowed()), std::string::npos) << error;
      }
    }
  }
}

TEST(FamilySchemaValidation, UnknownParameterIsRefusedWhereTheTemplateFixesThem) {
  for (const auto& s : kernels::family_schemas()) {
    if (s.parameters_from_cache) continue;
    SCOPED_TRACE(s.pair());
    const std::string error = validation_error(campaign_of(s, first_target(s), "    NOT_A_PARAM: [1]\n"));
    EXPECT_EQ(key_of(error), "space.parameters.NOT_A_PARAM") << error;
  }
}

TEST(FamilySchemaValidation, ProblemKeysUnknownOrOutOfRangeAreRefusedAtTheKey) {
  for (const auto& s : kernels::family_schemas()) {
    SCOPED_TRACE(s.pair());
    std::string error = validation_error(campaign_of(s, first_target(s), "", "  problem: {NOPE: 4}\n"));
    EXPECT_EQ(error.rfind("c.yaml:", 0), 0u);
    EXPECT_EQ(key_of(error), "evaluation.problem.NOPE") << error;
    for (const auto& k : s.problem) {
      for (const std::int64_t size : {k.max + 1, k.min - 1}) {
        if (size < 1) continue;  // the parser already refuses sizes < 1
        error = validation_error(
            campaign_of(s, first_target(s), "", "  problem: {" + k.name + ": " + std::to_string(size) + "}\n"));
        EXPECT_EQ(key_of(error), "evaluation.problem." + k.name) << error;
      }
      if (k.multiple_of > 1 && k.min + 1 <= k.max) {
        error = validation_error(campaign_of(
            s, first_target(s), "", "  problem: {" + k.name + ": " + std::to_string(k.multiple_of + 1) + "}\n"));
        EXPECT_EQ(key_of(error), "evaluation.problem." + k.name) << error;
      }
    }
  }
}

TEST(FamilySchemaValidation, EveryFamilyRefusesBaselinesItDoesNotHave) {
  for (const auto& s : kernels::family_schemas()) {
    SCOPED_TRACE(s.pair());
    std::string list;
    for (const auto& b : s.baselines) list += b + ", ";
    const std::string error =
        validation_error(campaign_of(s, first_target(s), "", "  baselines: [" + list + "nosuch]\n"));
    EXPECT_EQ(key_of(error), "evaluation.baselines[" + std::to_string(s.baselines.size()) + "]") << error;
  }
}

TEST(FamilySchemaValidation, TargetsTheBackendCannotEvaluateAreRefused) {
  for (const auto& s : kernels::family_schemas()) {
    if (s.targets.empty()) continue;  // replay: targets are labels
    SCOPED_TRACE(s.pair());
    std::string yaml = campaign_of(s, first_target(s));
    yaml.replace(yaml.find("targets: [" + first_target(s) + "]"), 10 + first_target(s).size() + 1,
                 "targets: [" + first_target(s) + ", ampere]");
    const std::string error = validation_error(yaml);
    EXPECT_EQ(key_of(error), "campaign.targets[1]") << error;
  }
  // The host backend cannot evaluate a GPU target on the local executor; any other name is an island's label.
  // On a Slurm site the name is a partition, and the host backend runs on the CPUs of its nodes.
  for (const auto& host : {*kernels::find_family_schema("host", "gemm"), *kernels::find_family_schema("host", "kda")}) {
    for (const std::string gpu : {"hopper", "blackwell"}) {
      EXPECT_EQ(key_of(validation_error(campaign_of(host, "host, " + gpu))), "campaign.targets[1]");
      EXPECT_EQ(validation_error(campaign_of(host, gpu), slurm_site()), "no error");
    }
    EXPECT_EQ(validation_error(campaign_of(host, "host, left")), "no error");
  }
}

TEST(FamilySchemaValidation, AProblemWhoseBuffersCannotBeAllocatedIsRefusedWithTheFigure) {
  for (const auto& s : kernels::family_schemas()) {
    if (s.problem.empty()) continue;
    SCOPED_TRACE(s.pair());
    // The largest sizes the keys allow, as far as the cross-key rule lets them.
    std::string sizes;
    for (const auto& k : s.problem) {
      const bool big =
          k.name == "T" || k.name == "rows" || k.name == "M" || (s.backend == "cuda" && s.family == "gemm");
      const std::int64_t v = big ? k.max : k.default_value;
      sizes += (sizes.empty() ? "" : ", ") + k.name + ": " + std::to_string(v);
    }
    const std::string error =
        validation_error(campaign_of(s, first_target(s), "", "  problem: {" + sizes + "}\n  memory_limit_mb: 64\n"));
    EXPECT_EQ(key_of(error), "evaluation.problem") << error;
    EXPECT_NE(error.find("B"), std::string::npos) << error;  // "... GiB" or "... MiB": the figure
  }
}

TEST(SpaceSatisfiability, ConstraintsThatNothingSatisfiesAreConfigErrorsAtTheConstraint) {
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"MC > 1000000", "is false for every one of the 1 configurations"},
      {"MC / 0 > 1", "divides by zero for every configuration"},
      {"MC // (MR - MR) == 1", "divides by zero for every configuration"},
      {"MC % 0 == 0", "divides by zero for every configuration"},
      {"LOOP_ORDER == 'nope'", "is false for every one"},
      {"False", "is false for every one"}};
  for (const auto& [expression, problem] : cases) {
    const std::string yaml = campaign_of(host, "host") + "";
    std::string with = yaml;
    with.replace(with.find("evaluation:\n"), 12, "  constraints:\n    - \"" + expression + "\"\nevaluation:\n");
    const std::string error = validation_error(with);
    EXPECT_EQ(error.rfind("c.yaml:18:7: space.constraints[0]: ", 0), 0u) << expression << ": " << error;
    EXPECT_NE(error.find(problem), std::string::npos) << error;
  }
}

TEST(SpaceSatisfiability, ConstraintsThatHoldAloneButNeverTogetherFailAtTheList) {
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  std::string yaml = campaign_of(host, "host");
  yaml.replace(yaml.find("    MC: [1]\n"), 12, "    MC: [1, 2, 3]\n");
  yaml.replace(yaml.find("evaluation:\n"), 12, "  constraints:\n    - \"MC < 2\"\n    - \"MC > 2\"\nevaluation:\n");
  const std::string error = validation_error(yaml);
  EXPECT_EQ(error.rfind("c.yaml:18:5: space.constraints: no one of the 3 configurations satisfies all", 0), 0u)
      << error;
}

TEST(SpaceSatisfiability, DivisionByZeroInSomeConfigurationsOnlyExcludesThem) {
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  std::string yaml = campaign_of(host, "host");
  yaml.replace(yaml.find("    UNROLL: [1]\n"), 16, "    UNROLL: [1, 2]\n");
  yaml.replace(yaml.find("evaluation:\n"), 12, "  constraints:\n    - \"MC / (UNROLL - 1) >= 1\"\nevaluation:\n");
  EXPECT_EQ(validation_error(yaml), "no error");
}

TEST(SpaceSatisfiability, ALargeSpaceIsSampledAndStillRefusedWhenNothingHolds) {
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  std::string yaml = campaign_of(host, "host");
  std::string many = "    MC: [";
  for (int v = 1; v <= 1000; ++v) many += std::to_string(v) + (v < 1000 ? ", " : "]\n");
  yaml.replace(yaml.find("    MC: [1]\n"), 12, many);
  std::string kc = "    KC: [";
  for (int v = 1; v <= 1000; ++v) kc += std::to_string(v) + (v < 1000 ? ", " : "]\n");
  yaml.replace(yaml.find("    KC: [1]\n"), 12, kc);  // 10^6 configurations: above the exhaustive limit
  yaml.replace(yaml.find("evaluation:\n"), 12, "  constraints:\n    - \"MC + KC > 5000\"\nevaluation:\n");
  const std::string error = validation_error(yaml);
  EXPECT_NE(
      error.find("space.constraints[0]: \"MC + KC > 5000\" is false for every one of 10000 random configurations"),
      std::string::npos)
      << error;
}

TEST(LimitsValidation, LimitsThatOverflowWhenConvertedAreRefused) {
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  for (const std::string line :
       {"memory_limit_mb: 17592186044416", "file_limit_mb: 9223372036854775807", "memory_limit_mb: 16777217",
        "timeout_s: 1e300", "cpu_limit_s: 1e7", "compile_timeout_s: 1.5e6", "time_cap_s: 1e30"}) {
    const std::string error = validation_error(campaign_of(host, "host", "", "  " + line + "\n"));
    EXPECT_EQ(key_of(error), "evaluation." + line.substr(0, line.find(':'))) << error;
    EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  }
  EXPECT_EQ(validation_error(campaign_of(host, "host", "", "  memory_limit_mb: 16777216\n  timeout_s: 1e6\n")),
            "no error");
}

TEST(LimitsValidation, GenerationsTooLargeOverAllIslandsAreRefusedWithTheFigure) {
  std::string targets = "host";
  for (int i = 0; i < 19; ++i) targets += ", island" + std::to_string(i);
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  const std::string yaml = campaign_of(host, targets) + "search:\n  population: 65536\n  offspring: 65536\n";
  const std::string error = validation_error(yaml);
  EXPECT_EQ(key_of(error), "search.offspring") << error;
  EXPECT_NE(error.find("20 islands x (population 65536 + offspring 65536) = 2621440 candidates per generation"),
            std::string::npos)
      << error;
  EXPECT_EQ(validation_error(campaign_of(host, targets) + "search:\n  population: 4096\n  offspring: 4096\n"),
            "no error");
}

TEST(LimitsValidation, AgentTimeoutsThatOverflowTheClocksAreRefused) {
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  for (const std::string value : {"1e300", "1e7", ".inf"}) {
    const std::string error = validation_error(campaign_of(host, "host") +
                                               "agents:\n  - {name: a, command: [true], timeout_s: " + value + "}\n");
    EXPECT_NE(error.find(".timeout_s: " + value + " is"), std::string::npos) << error;
  }
}

TEST(LimitsValidation, PopulationsTooLargeForMemoryAreRefusedWithTheFigure) {
  const FamilySchema& host = *kernels::find_family_schema("host", "gemm");
  for (const std::string key : {"population", "offspring"}) {
    std::string yaml = campaign_of(host, "host") + "search:\n  " + key + ": 2147483647\n";
    const std::string error = validation_error(yaml);
    EXPECT_EQ(key_of(error), "search." + key) << error;
    EXPECT_NE(error.find("2147483647 is out of range (an integer in ["), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace kforge::scheduler

namespace kforge::scheduler {
namespace {

// The ```yaml block under a heading of a Markdown file.
std::string yaml_block_after(const std::string& markdown_file, const std::string& heading) {
  const std::string text = test_slurp(markdown_file);
  const std::size_t at = text.find("\n" + heading + "\n");
  const std::size_t open = text.find("```yaml\n", at);
  const std::size_t close = text.find("\n```", open + 8);
  if (at == std::string::npos || open == std::string::npos || close == std::string::npos) return "";
  return text.substr(open + 8, close - open - 8 + 1);
}

TEST(FamilySchemaValidation, TheCompleteCampaignOfTheDocsValidates) {
  const std::string yaml =
      yaml_block_after(std::string(KFORGE_SOURCE_DIR) + "/docs/campaign-schema.md", "## A complete campaign");
  ASSERT_FALSE(yaml.empty());
  EXPECT_EQ(validation_error(yaml), "no error") << yaml;
}

}  // namespace
}  // namespace kforge::scheduler
