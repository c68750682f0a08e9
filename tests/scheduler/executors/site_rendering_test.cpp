// The batch script of each shipped site-configs/ target carries that target's own resources, and a site's
// old site-wide keys still apply to targets that set none.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "kforge/scheduler/config/config.hpp"
#include "slurm/batch_script.hpp"

using namespace kforge::scheduler;
using namespace kforge::scheduler::slurm_detail;

namespace {

SiteConfig shipped(const std::string& file) {
  return load_site(std::string(KFORGE_SOURCE_DIR) + "/site-configs/" + file);
}

std::string render(const SiteConfig& site, const std::string& target) {
  const ArrayJob job{"gemm",
                     1,
                     target,
                     0,
                     3,
                     "/c/g0001/slurm/array-0.tasks",
                     "/c/g0001/tasks",
                     "/c/g0001/logs/array-0-%A_%a.out",
                     "/opt/kforge/bin/kforge-eval"};
  return render_batch_script(job, site.slurm);
}

void expect_lines(const std::string& script, std::initializer_list<const char*> lines) {
  for (const char* line : lines)
    EXPECT_NE(script.find(line), std::string::npos) << "missing: " << line << "\n" << script;
  EXPECT_FALSE(std::regex_search(script, std::regex("@[A-Z_]+@"))) << "an unrendered placeholder:\n" << script;
}

}  // namespace

TEST(SiteRendering, HopperClusterTargetsCarryTheirOwnResources) {
  const SiteConfig site = shipped("hopper-cluster.yaml");
  expect_lines(
      render(site, "hopper"),
      {"#SBATCH --partition=gpu-h100\n", "#SBATCH --gres=gpu:h100:4\n", "#SBATCH --nodes=1\n", "#SBATCH --ntasks=4\n",
       "#SBATCH --ntasks-per-node=4\n", "#SBATCH --cpus-per-task=16\n", "#SBATCH --time=45\n", "#SBATCH --mem=480G\n",
       "#SBATCH --exclusive\n", "#SBATCH --account=CHANGE-ME-project\n", "#SBATCH --qos=CHANGE-ME-normal\n",
       "#SBATCH --mail-type=FAIL\n", "#SBATCH --signal=B:USR1@120\n", "srun --mpi=pmix --kill-on-bad-exit=1 -n 4 "});
  const std::string h200 = render(site, "hopper_h200");
  expect_lines(h200, {"#SBATCH --gres=gpu:h200:8\n", "#SBATCH --ntasks=8\n", "#SBATCH --cpus-per-task=12\n",
                      "#SBATCH --time=30\n", "#SBATCH --qos=CHANGE-ME-h200\n", "#SBATCH --mem=1900G\n"});
  EXPECT_EQ(h200.find("--mail-type"), std::string::npos) << "extra options belong to the target that names them";
}

TEST(SiteRendering, BlackwellTwoNodeTargetSpreadsItsRanks) {
  const SiteConfig site = shipped("blackwell-cluster.yaml");
  expect_lines(render(site, "blackwell"),
               {"#SBATCH --gres=gpu:b200:8\n", "#SBATCH --ntasks=8\n", "#SBATCH --constraint=ib\n",
                "#SBATCH --gpu-bind=closest\n", "#SBATCH --cpus-per-task=14\n", "#SBATCH --mem=1800G\n"});
  expect_lines(render(site, "blackwell_2node"),
               {"#SBATCH --nodes=2\n", "#SBATCH --ntasks=16\n", "#SBATCH --ntasks-per-node=8\n", "#SBATCH --time=60\n",
                "srun --mpi=pmix --kill-on-bad-exit=1 -n 16 "});
}

TEST(SiteRendering, MixedSiteBillsEachTargetToItsOwnAccountAndQos) {
  const SiteConfig site = shipped("mixed-site.yaml");
  expect_lines(render(site, "hopper"),
               {"#SBATCH --account=CHANGE-ME-project\n", "#SBATCH --qos=CHANGE-ME-h100\n", "#SBATCH --ntasks=4\n"});
  expect_lines(render(site, "blackwell"), {"#SBATCH --account=CHANGE-ME-b200-project\n",
                                           "#SBATCH --qos=CHANGE-ME-b200\n", "#SBATCH --ntasks=8\n"});
  const std::string host = render(site, "host");
  expect_lines(host, {"#SBATCH --partition=cpu\n", "#SBATCH --ntasks=4\n", "#SBATCH --cpus-per-task=2\n"});
  EXPECT_EQ(host.find("--gres"), std::string::npos);
  EXPECT_EQ(host.find("--exclusive"), std::string::npos);
}

TEST(SiteRendering, SiteWideKeysStillApplyToATargetThatSetsNone) {
  const SiteConfig site = shipped("local-slurm.yaml");
  const std::string script = render(site, "hopper");
  expect_lines(script, {"#SBATCH --nodes=1\n", "#SBATCH --ntasks=1\n", "#SBATCH --cpus-per-task=1\n",
                        "#SBATCH --time=10\n", "#SBATCH --gres=gpu:h100:1\n"});
  EXPECT_EQ(script.find("--mem"), std::string::npos) << "no mem: Slurm's default";
}
