#include <gtest/gtest.h>

#include "slurm/batch_script.hpp"

using namespace kforge::scheduler;
using namespace kforge::scheduler::slurm_detail;

namespace {
SlurmExecutorSpec spec() {
  SlurmExecutorSpec s;
  s.ranks_per_task = 4;
  s.cpus_per_rank = 8;
  s.max_concurrent_tasks = 3;
  s.time_limit_min = 45;
  s.account = "proj7";
  s.modules = {"cuda/13.0"};
  s.environment = {{"OMP_NUM_THREADS", "1"}, {"QUOTED", "it's"}};
  s.targets["hopper"].partition = "gpu-h100";
  s.targets["hopper"].gres = "gpu:h100:4";
  return s;
}
ArrayJob job() {
  return ArrayJob{"gemm",
                  7,
                  "hopper",
                  2,
                  5,
                  "/c/g0007/slurm/array-2.tasks",
                  "/c/g0007/tasks",
                  "/c/g0007/logs/array-2-%A_%a.out",
                  "/opt/kforge/bin/kforge-eval"};
}
}  // namespace

TEST(BatchScript, CarriesTheNameAnAdminReadsAndEveryOptionOfTheSite) {
  const std::string script = render_batch_script(job(), spec());
  for (const char* line :
       {"#SBATCH --job-name=kf:gemm:g7:hopper\n", "#SBATCH --partition=gpu-h100\n", "#SBATCH --gres=gpu:h100:4\n",
        "#SBATCH --account=proj7\n", "#SBATCH --ntasks=4\n", "#SBATCH --cpus-per-task=8\n", "#SBATCH --time=45\n",
        "#SBATCH --array=0-4%3\n", "#SBATCH --requeue\n", "#SBATCH --output=/c/g0007/logs/array-2-%A_%a.out\n",
        "module load cuda/13.0\n", "export QUOTED='it'\\''s'\n",
        "srun --mpi=pmix --kill-on-bad-exit=1 -n 4 '/opt/kforge/bin/kforge-eval' --manifest \"$manifest\"\n"}) {
    EXPECT_NE(script.find(line), std::string::npos) << "missing: " << line << "\n" << script;
  }
  EXPECT_EQ(script.find('@'), std::string::npos) << "an unrendered placeholder:\n" << script;
  EXPECT_EQ(script.find("--qos"), std::string::npos) << "an empty site value must leave Slurm's default";
}

TEST(BatchScript, JobNameKeepsCampaignGenerationAndTargetShortEnoughForSqueue) {
  ArrayJob j = job();
  j.campaign = "a-very-long-campaign-name-indeed";
  j.target = "blackwell-gb200-nvl72";
  j.generation = 12;
  EXPECT_EQ(job_name(j), "kf:a-very-long-camp:g12:blackwell-");
  EXPECT_NE(comment(j).find("campaign=a-very-long-campaign-name-indeed"), std::string::npos) << "the full name stays";
}

TEST(BatchScript, MpirunLaunchUsesTheRankCount) {
  SlurmExecutorSpec s = spec();
  s.mpi_launch = "mpirun";
  EXPECT_EQ(launch_command(s), "mpirun -np 4");
}

TEST(ExcludeList, ExcludesFailedNodesOnlyWhileThePartitionKeepsOne) {
  EXPECT_EQ(exclude_list({}, 8), "");
  EXPECT_EQ(exclude_list({"n03", "n01"}, 8), "n01,n03");
  EXPECT_EQ(exclude_list({"n01"}, 1), "");  // the only node: excluding it would leave the task nowhere to run
  EXPECT_EQ(exclude_list({"n01", "n02"}, 2), "");
}
