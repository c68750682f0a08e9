// Inputs a config reader must refuse promptly and by name, never hang on or crash: files that are not regular
// or too large, and site values that would inject lines into a batch script. Each class is tried in every form
// and at every key it can reach.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config_test_util.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace kforge::scheduler {
namespace {

namespace fs = std::filesystem;

using TempDir = test_support::ScratchDir;

TEST(ConfigFileReader, FilesThatAreNotRegularAreRefusedByKindWithTheFileNamed) {
  TempDir dir;
  const fs::path fifo = dir.path() / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::pair<fs::path, std::string>> cases = {{fifo, "it is a FIFO"},
                                                               {"/dev/zero", "it is a character device"},
                                                               {"/dev/null", "it is a character device"},
                                                               {dir.path(), "it is a directory"}};
  for (const auto& entry : cases) {
    const fs::path& file = entry.first;  // not a structured binding: clang 14 refuses to capture one in a lambda
    const std::string& kind = entry.second;
    EXPECT_EQ(test::config_error_of([&] { load_campaign(file); }),
              file.string() + ":1:1: <file>: cannot read: " + kind + " (a readable YAML file)");
    EXPECT_EQ(test::config_error_of([&] { load_site(file); }),
              file.string() + ":1:1: <file>: cannot read: " + kind + " (a readable YAML file)");
  }
}

TEST(ConfigFileReader, FilesOverOneMebibyteAreRefusedWithTheirSizeAndOneAtTheLimitIsRead) {
  TempDir dir;
  const std::string head = test::kMinimalCampaign;
  for (const std::size_t size : {std::size_t{1} << 20, (std::size_t{1} << 20) + 1, std::size_t{5} << 20}) {
    const fs::path file = dir.path() / ("c" + std::to_string(size) + ".yaml");
    std::ofstream(file) << head << std::string(size - head.size(), '#');
    const std::string error = test::config_error_of([&] { load_campaign(file); });
    if (size == std::size_t{1} << 20) {
      EXPECT_EQ(error, "no error");
    } else {
      EXPECT_EQ(error, file.string() + ":1:1: <file>: cannot read: " + std::to_string(size) +
                           " bytes is larger than the limit of 1048576 bytes (a readable YAML file of at most 1 MiB)");
    }
  }
}

// Every site key whose value goes into the batch script or job description, with a value in each hostile form.
TEST(SiteInjection, EveryScriptValueRefusesLineBreaksControlCharactersAndSbatchDirectives) {
  struct Place {
    std::string yaml_key;  // as written under its parent in the template below
    std::string error_key;
  };
  const std::vector<Place> places = {
      {"SLURM_account", "slurm.account"},
      {"SLURM_qos", "slurm.qos"},
      {"SLURM_reservation", "slurm.reservation"},
      {"SLURM_srun_mpi", "slurm.srun_mpi"},
      {"SLURM_agent_partition", "slurm.agent_partition"},
      {"SLURM_conf", "slurm.conf"},
      {"TARGET_partition", "slurm.targets.hopper.partition"},
      {"TARGET_gres", "slurm.targets.hopper.gres"},
      {"TARGET_constraint", "slurm.targets.hopper.constraint"},
      {"TARGET_account", "slurm.targets.hopper.account"},
      {"TARGET_qos", "slurm.targets.hopper.qos"},
  };
  const std::vector<std::pair<std::string, std::string>> hostile = {
      {"\"x\\n#SBATCH --uid=0\"", "contains a line break"}, {"\"x\\nrm -rf /\"", "contains a line break"},
      {"\"x\\r\"", "contains the control character 0x0d"},  {"\"x\\0y\"", "contains the control character 0x00"},
      {"\"x\\ty\"", "contains the control character 0x09"}, {"\"/x #SBATCH --uid=0\"", "contains '#SBATCH'"},
      {"\"/x #sbatch --uid=0\"", "contains '#SBATCH'"}};
  for (const auto& place : places) {
    for (const auto& [value, problem] : hostile) {
      const bool target = place.yaml_key.starts_with("TARGET_");
      const std::string key = place.yaml_key.substr(place.yaml_key.find('_') + 1);
      std::string yaml = "site:\n  name: s\n  executor: slurm\nslurm:\n";
      if (!target) yaml += "  " + key + ": " + value + "\n";
      yaml += "  targets:\n    hopper:\n";
      if (key != "partition" || !target) yaml += "      partition: gpu\n";
      if (target) yaml += "      " + key + ": " + value + "\n";
      const std::string error = test::site_error(yaml);
      SCOPED_TRACE(yaml);
      EXPECT_EQ(error.rfind("s.yaml:", 0), 0u) << error;
      EXPECT_NE(error.find(": " + place.error_key + ": " + problem + " ("), std::string::npos) << error;
    }
  }
}

TEST(SiteInjection, ListAndMappingValuesAreCheckedElementByElement) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"  modules: [ok, \"cuda\\nid\"]\n", "s.yaml:5:17: slurm.modules[1]: contains a line break"},
      {"  environment: {A: \"1\", B: \"2\\n#SBATCH -N 9\"}\n",
       "s.yaml:5:28: slurm.environment.B: contains a line break"},
  };
  for (const auto& [line, prefix] : cases) {
    const std::string error = test::site_error("site:\n  name: s\n  executor: slurm\nslurm:\n" + line +
                                               "  targets:\n    h: {partition: p}\n");
    EXPECT_EQ(error.rfind(prefix, 0), 0u) << error;
  }
  const std::string error = test::site_error(
      "site:\n  name: s\n  executor: slurm\nslurm:\n  targets:\n    h:\n      partition: p\n"
      "      extra_sbatch_options: [--mail-type=END, \"--x=1\\n#SBATCH --uid=0\"]\n");
  EXPECT_EQ(error.rfind("s.yaml:8:47: slurm.targets.h.extra_sbatch_options[1]: contains a line break", 0), 0u) << error;
}

TEST(SiteInjection, OrdinaryValuesStillLoad) {
  const SiteConfig site = parse_site(
      "site:\n  name: s\n  executor: slurm\nslurm:\n  account: proj-1_a\n  environment: {OMP_NUM_THREADS: \"1\", "
      "X: \"a b # comment-like\"}\n  targets:\n    h: {partition: gpu-h100, gres: \"gpu:h100:4,nvme:1\", constraint: "
      "\"ib&h100\"}\n",
      "s.yaml");
  EXPECT_EQ(site.slurm.targets.at("h").gres, "gpu:h100:4,nvme:1");
  EXPECT_EQ(site.slurm.environment.at("X"), "a b # comment-like");
}

TEST(SiteLimits, PollIntervalsThatOverflowTheClocksAreRefused) {
  for (const std::string value : {"1e300", "3601", "1e7"}) {
    const std::string error =
        test::site_error("site:\n  name: s\n  executor: slurm\nslurm:\n  poll_interval_s: " + value +
                         "\n  targets:\n    h: {partition: p}\n");
    EXPECT_EQ(error, "s.yaml:5:20: slurm.poll_interval_s: " + value +
                         " is out of range (a number of seconds > 0 and <= 3600)");
  }
}

TEST(SiteTargets, AnEmptyTargetsMappingIsReportedAtItsOwnLine) {
  for (const std::string empty : {"{}", "[]", ""}) {
    const std::string error =
        test::site_error("site:\n  name: s\n  executor: slurm\nslurm:\n  account: a\n  targets: " + empty + "\n");
    SCOPED_TRACE(empty);
    EXPECT_EQ(error.rfind(empty.empty() ? "s.yaml:6:3: slurm.targets: " : "s.yaml:6:12: slurm.targets: ", 0), 0u)
        << error;
  }
}

}  // namespace
}  // namespace kforge::scheduler
