// slurm.targets of a site: per-target resources, their inheritance of the site-wide keys, every class of
// error with its FILE:LINE:COLUMN, slurm.conf, and the shipped site-configs/ (parsed and serving a campaign).
#include <gtest/gtest.h>

#include <string>

#include "config_test_util.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {
namespace {

using test::site_error;

// Lines 1-9; a target's keys are appended from line 10 on, at column 7.
const std::string kSlurmSite =
    "site: {name: s, executor: slurm}\n"
    "slurm:\n"
    "  account: site-acct\n"
    "  ranks_per_task: 2\n"
    "  cpus_per_rank: 3\n"
    "  time_limit_min: 40\n"
    "  targets:\n"
    "    hopper:\n"
    "      partition: gpu-h100\n";

SiteConfig site_with(const std::string& target_keys) { return parse_site(kSlurmSite + target_keys, "s.yaml"); }
std::string error_with(const std::string& target_keys) { return site_error(kSlurmSite + target_keys); }

TEST(SiteTargets, ATargetInheritsTheSiteWideKeysAndOverridesEach) {
  SiteConfig inherited = site_with("");
  EXPECT_EQ(inherited.slurm.ranks_per_task_of("hopper"), 2);
  EXPECT_EQ(inherited.slurm.cpus_per_rank_of("hopper"), 3);
  EXPECT_EQ(inherited.slurm.time_limit_min_of("hopper"), 40);
  EXPECT_EQ(inherited.slurm.account_of("hopper"), "site-acct");
  EXPECT_EQ(inherited.ranks_per_task("hopper"), 2);

  SiteConfig own = site_with(
      "      nodes: 2\n      gpus_per_node: 4\n      ranks_per_task: 8\n      cpus_per_rank: 16\n"
      "      time_limit_min: 90\n      mem: 480G\n      exclusive: true\n      account: other\n      qos: high\n"
      "      extra_sbatch_options: [--mail-type=FAIL, --signal=B:USR1@120]\n");
  const SlurmTargetSpec& t = own.slurm.targets.at("hopper");
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.gpus_per_node, 4);
  EXPECT_EQ(own.slurm.ranks_per_task_of("hopper"), 8);
  EXPECT_EQ(own.ranks_per_task("hopper"), 8);
  EXPECT_EQ(own.slurm.cpus_per_rank_of("hopper"), 16);
  EXPECT_EQ(own.slurm.time_limit_min_of("hopper"), 90);
  EXPECT_EQ(t.mem, "480G");
  EXPECT_TRUE(t.exclusive);
  EXPECT_EQ(own.slurm.account_of("hopper"), "other");
  EXPECT_EQ(own.slurm.qos_of("hopper"), "high");
  EXPECT_EQ(t.extra_sbatch_options, (std::vector<std::string>{"--mail-type=FAIL", "--signal=B:USR1@120"}));
}

TEST(SiteTargets, TypeAndRangeErrorsNameFileLineColumnAndKey) {
  EXPECT_EQ(error_with("      nodes: 0\n"),
            "s.yaml:10:14: slurm.targets.hopper.nodes: 0 is out of range (an integer >= 1)");
  EXPECT_EQ(error_with("      gpus_per_node: 65\n"),
            "s.yaml:10:22: slurm.targets.hopper.gpus_per_node: 65 is out of range (an integer in [0, 64])");
  EXPECT_EQ(error_with("      cpus_per_rank: many\n"),
            "s.yaml:10:22: slurm.targets.hopper.cpus_per_rank: expected an integer, got 'many' (an integer >= 1)");
  EXPECT_EQ(error_with("      exclusive: yes-please\n"),
            "s.yaml:10:18: slurm.targets.hopper.exclusive: expected true or false, got 'yes-please' (true or false)");
  EXPECT_NE(
      error_with("      mem: 12 GB\n").find("s.yaml:10:12: slurm.targets.hopper.mem: '12 GB' is not a memory size"),
      std::string::npos);
  EXPECT_EQ(error_with("      partitoin: x\n").rfind("s.yaml:10:7: slurm.targets.hopper.partitoin: unknown key", 0),
            0u);
}

TEST(SiteTargets, RanksMustSpreadOverNodesAndFitTheGpus) {
  EXPECT_NE(error_with("      nodes: 2\n      ranks_per_task: 3\n")
                .find("s.yaml:11:23: slurm.targets.hopper.ranks_per_task: 3 ranks do not spread evenly over 2 node(s)"),
            std::string::npos);
  EXPECT_NE(error_with("      gpus_per_node: 4\n      ranks_per_task: 8\n")
                .find("slurm.targets.hopper.ranks_per_task: 8 ranks per node but gpus_per_node is 4"),
            std::string::npos);
  EXPECT_NE(error_with("      gpus_per_node: 4\n      gres: \"gpu:h100:8\"\n")
                .find("s.yaml:11:13: slurm.targets.hopper.gres: asks for 8 GPUs per node but gpus_per_node is 4"),
            std::string::npos);
}

TEST(SiteTargets, ExtraOptionsMustBeLongOptionsKforgeDoesNotSet) {
  EXPECT_NE(
      error_with("      extra_sbatch_options: [-p debug]\n")
          .find("s.yaml:10:30: slurm.targets.hopper.extra_sbatch_options[0]: '-p debug' is not an sbatch long option"),
      std::string::npos);
  EXPECT_NE(error_with("      extra_sbatch_options: [--mail-type=END, --partition=x]\n")
                .find("s.yaml:10:47: slurm.targets.hopper.extra_sbatch_options[1]: '--partition=x' clashes with "
                      "--partition, which kforge sets itself (use partition)"),
            std::string::npos);
  // sbatch takes an unambiguous abbreviation, so "--ti" would be --time.
  EXPECT_NE(error_with("      extra_sbatch_options: [--ti=5]\n").find("clashes with --time"), std::string::npos);
  EXPECT_NE(error_with("      extra_sbatch_options: [--exclusive]\n").find("(use exclusive)"), std::string::npos);
  EXPECT_NE(error_with("      extra_sbatch_options: --mail-type=END\n").find("expected a list"), std::string::npos);
}

TEST(SiteTargets, SlurmConfMustBeAnAbsolutePath) {
  SiteConfig s = parse_site(
      "site: {name: s, executor: slurm}\nslurm:\n  conf: /opt/slurm/etc/slurm.conf\n"
      "  targets: {hopper: {partition: p}}\n",
      "s.yaml");
  EXPECT_EQ(s.slurm.conf, "/opt/slurm/etc/slurm.conf");
  EXPECT_EQ(site_error("site: {name: s, executor: slurm}\nslurm:\n  conf: etc/slurm.conf\n"
                       "  targets: {hopper: {partition: p}}\n"),
            "s.yaml:3:9: slurm.conf: 'etc/slurm.conf' is not an absolute path (the absolute path of the site's "
            "slurm.conf, e.g. /etc/slurm/slurm.conf)");
}

// The shipped sites parse, serve a campaign with their targets, and give each GPU target real resources.
class ShippedSite : public ::testing::TestWithParam<std::pair<std::string, std::vector<std::string>>> {};

TEST_P(ShippedSite, ParsesAndServesACampaignOfItsTargets) {
  const auto& [file, targets] = GetParam();
  const SiteConfig site = load_site(std::string(KFORGE_SOURCE_DIR) + "/site-configs/" + file);
  EXPECT_EQ(site.executor, "slurm");
  CampaignConfig campaign = load_campaign(std::string(KFORGE_SOURCE_DIR) + "/share/examples/gemm-cuda.yaml");
  campaign.targets = targets;
  EXPECT_NO_THROW(check_site_serves_campaign(site, campaign));
  for (const auto& target : targets) {
    const SlurmTargetSpec& t = site.slurm.targets.at(target);
    EXPECT_GE(t.gpus_per_node, 4) << target;
    EXPECT_EQ(site.slurm.ranks_per_task_of(target), t.gpus_per_node * t.nodes) << "one rank per GPU: " << target;
    EXPECT_FALSE(t.gres.empty()) << target;
    EXPECT_FALSE(t.mem.empty()) << target;
    EXPECT_TRUE(t.exclusive) << target;
    EXPECT_NE(site.slurm.account_of(target).find("CHANGE-ME"), std::string::npos) << "a marked placeholder";
  }
  campaign.targets.push_back("no_such_target");
  EXPECT_THROW(check_site_serves_campaign(site, campaign), ConfigError);
}

INSTANTIATE_TEST_SUITE_P(SiteConfigs, ShippedSite,
                         ::testing::Values(std::make_pair(std::string("hopper-cluster.yaml"),
                                                          std::vector<std::string>{"hopper", "hopper_h200"}),
                                           std::make_pair(std::string("blackwell-cluster.yaml"),
                                                          std::vector<std::string>{"blackwell", "blackwell_2node"}),
                                           std::make_pair(std::string("mixed-site.yaml"),
                                                          std::vector<std::string>{"hopper", "blackwell"})));

}  // namespace
}  // namespace kforge::scheduler
