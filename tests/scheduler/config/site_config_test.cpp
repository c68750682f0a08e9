// Site files: the embedded default, defaults of absent keys, and every class of site error.
#include <gtest/gtest.h>

#include <string>

#include "config_test_util.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {
namespace {

using test::site_error;

TEST(SiteConfig, EmbeddedDefaultIsTheLocalSite) {
  SiteConfig s = embedded_default_site();
  EXPECT_EQ(s.file, "<embedded local.yaml>");
  EXPECT_NE(s.text.find("ranks_per_task"), std::string::npos);
  EXPECT_EQ(s.name, "local");
  EXPECT_EQ(s.executor, "local");
  EXPECT_EQ(s.max_task_retries, 2);
  EXPECT_EQ(s.local.ranks_per_task, 2);
  EXPECT_EQ(s.local.max_concurrent_tasks, 1);
  EXPECT_EQ(s.local.mpirun, "mpirun");
  EXPECT_EQ(s.local.mpirun_args, std::vector<std::string>{"--oversubscribe"});
}

TEST(SiteConfig, EmbeddedDefaultMatchesSiteConfigsLocalYaml) {
  SiteConfig embedded = embedded_default_site();
  SiteConfig file = load_site(std::string(KFORGE_SOURCE_DIR) + "/site-configs/local.yaml");
  EXPECT_EQ(file.text, embedded.text);
  EXPECT_EQ(file.name, embedded.name);
  EXPECT_EQ(file.local.mpirun_args, embedded.local.mpirun_args);
}

TEST(SiteConfig, AbsentKeysTakeTheStructDefaults) {
  SiteConfig s = parse_site("site: {name: tiny}\n", "s.yaml");
  EXPECT_EQ(s.name, "tiny");
  EXPECT_EQ(s.executor, SiteConfig{}.executor);
  EXPECT_EQ(s.max_task_retries, SiteConfig{}.max_task_retries);
  EXPECT_EQ(s.local.ranks_per_task, LocalExecutorSpec{}.ranks_per_task);
  EXPECT_EQ(s.local.mpirun, LocalExecutorSpec{}.mpirun);
  EXPECT_TRUE(s.local.mpirun_args.empty());
}

TEST(SiteErrors, UnknownTopLevelKey) {
  EXPECT_EQ(site_error("site: {name: x}\nslrum:\n  partition: gpu\n"),
            "s.yaml:2:1: slrum: unknown key (allowed keys: site, local, slurm)");
}

TEST(SiteErrors, UnknownNestedKey) {
  EXPECT_EQ(site_error("site: {name: x}\nlocal:\n  ranks: 4\n"),
            "s.yaml:3:3: local.ranks: unknown key "
            "(allowed keys: ranks_per_task, max_concurrent_tasks, mpirun, mpirun_args)");
}

TEST(SiteErrors, UnknownExecutor) {
  EXPECT_EQ(site_error("site:\n  name: x\n  executor: pbs\n"),
            "s.yaml:3:13: site.executor: unknown executor 'pbs' (local or slurm)");
}

TEST(SiteErrors, SlurmExecutorNeedsASlurmSection) {
  const std::string error = site_error("site:\n  name: x\n  executor: slurm\n");
  EXPECT_EQ(error.rfind("s.yaml:1:1: slurm: missing required key", 0), 0u) << error;
}

TEST(SiteErrors, SlurmSectionNeedsTargetsWithPartitions) {
  const std::string error = site_error("site: {name: x, executor: slurm}\nslurm:\n  targets:\n    hopper: {gres: x}\n");
  EXPECT_NE(error.find("slurm.targets.hopper.partition: missing required key"), std::string::npos) << error;
  const std::string none = site_error("site: {name: x, executor: slurm}\nslurm:\n  ranks_per_task: 2\n");
  EXPECT_NE(none.find("slurm.targets: missing required key"), std::string::npos) << none;
}

TEST(SiteConfig, SlurmSectionParsesEveryKey) {
  const SiteConfig s = parse_site(
      "site: {name: c, executor: slurm, max_task_retries: 3}\n"
      "slurm:\n  client: cli\n  account: a\n  qos: q\n  reservation: r\n  time_limit_min: 9\n"
      "  ranks_per_task: 4\n  cpus_per_rank: 2\n  max_concurrent_tasks: 5\n  mpi_launch: mpirun\n"
      "  srun_mpi: pmi2\n  modules: [cuda/13]\n  environment: {OMP_NUM_THREADS: '1'}\n  poll_interval_s: 0.5\n"
      "  targets:\n    hopper: {partition: gpu-h, gres: 'gpu:h100:4', constraint: ib}\n",
      "s.yaml");
  EXPECT_EQ(s.executor, "slurm");
  EXPECT_EQ(s.ranks_per_task(), 4);
  EXPECT_EQ(s.slurm.client, "cli");
  EXPECT_EQ(s.slurm.account, "a");
  EXPECT_EQ(s.slurm.time_limit_min, 9);
  EXPECT_EQ(s.slurm.cpus_per_rank, 2);
  EXPECT_EQ(s.slurm.max_concurrent_tasks, 5);
  EXPECT_EQ(s.slurm.mpi_launch, "mpirun");
  EXPECT_EQ(s.slurm.modules, std::vector<std::string>{"cuda/13"});
  EXPECT_EQ(s.slurm.environment.at("OMP_NUM_THREADS"), "1");
  EXPECT_DOUBLE_EQ(s.slurm.poll_interval_s, 0.5);
  EXPECT_EQ(s.slurm.targets.at("hopper").partition, "gpu-h");
  EXPECT_EQ(s.slurm.targets.at("hopper").gres, "gpu:h100:4");
  EXPECT_EQ(s.slurm.targets.at("hopper").constraint, "ib");
}

TEST(SiteErrors, CampaignTargetMissingFromTheSlurmSiteNamesTheSiteKey) {
  const SiteConfig s =
      parse_site("site: {name: c, executor: slurm}\nslurm:\n  targets:\n    hopper: {partition: h}\n", "s.yaml");
  CampaignConfig c;
  c.name = "camp";
  c.targets = {"hopper", "blackwell"};
  try {
    check_site_serves_campaign(s, c);
    FAIL() << "accepted a campaign target the site does not define";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.yaml:4:5: slurm.targets: campaign camp needs target 'blackwell' but the site does not define it "
              "(targets defined here: hopper)");
  }
}

TEST(SiteErrors, RanksPerTaskOutOfRange) {
  EXPECT_EQ(site_error("site: {name: x}\nlocal:\n  ranks_per_task: 0\n"),
            "s.yaml:3:19: local.ranks_per_task: 0 is out of range (an integer >= 1)");
}

TEST(SiteErrors, WrongTypes) {
  EXPECT_EQ(site_error("site: {name: x}\nlocal:\n  mpirun_args: --oversubscribe\n"),
            "s.yaml:3:16: local.mpirun_args: expected a list, got '--oversubscribe' "
            "(a list of arguments, e.g. [--oversubscribe])");
  EXPECT_EQ(site_error("site: {name: x, max_task_retries: two}\n"),
            "s.yaml:1:35: site.max_task_retries: expected an integer, got 'two' (an integer >= 0)");
}

TEST(SiteErrors, MissingSiteName) {
  EXPECT_EQ(site_error("site:\n  executor: local\n"),
            "s.yaml:2:3: site.name: missing required key (a safe file name: letters, digits, '.', '_', '-')");
}

TEST(SiteErrors, ACatalogIsAnAbsoluteFolderOrNone) {
  EXPECT_EQ(parse_site("site:\n  name: s\n  catalog: /srv/kforge/catalog\n", "s.yaml").catalog, "/srv/kforge/catalog");
  EXPECT_EQ(parse_site("site:\n  name: s\n  catalog: none\n", "s.yaml").catalog, "none");
  EXPECT_EQ(parse_site("site:\n  name: s\n", "s.yaml").catalog, "");  // each user's own
  EXPECT_EQ(site_error("site:\n  name: s\n  catalog: runs/catalog\n"),
            "s.yaml:3:12: site.catalog: 'runs/catalog' is neither an absolute path nor none (an absolute path of a "
            "folder (mode 1777 when users share it), or none)");
}

TEST(SiteErrors, YamlSyntaxError) {
  EXPECT_EQ(site_error("site: {name: x\n"), "s.yaml:2:1: <yaml>: end of map flow not found (valid YAML)");
}

TEST(SiteErrors, MissingFile) {
  EXPECT_EQ(test::config_error_of([] { load_site("/nonexistent/kforge/s.yaml"); }),
            "/nonexistent/kforge/s.yaml:1:1: <file>: cannot read: No such file or directory (a readable YAML file)");
}

TEST(SiteErrors, DirectoryInsteadOfFile) {
  EXPECT_EQ(test::config_error_of([] { load_site("/"); }),
            "/:1:1: <file>: cannot read: it is a directory (a readable YAML file)");
}

}  // namespace
}  // namespace kforge::scheduler
