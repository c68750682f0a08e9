// Both SlurmClient backends against a real single-node cluster (slurm/scripts/with-cluster.sh).
#include <gtest/gtest.h>
#include <slurm/slurm_errno.h>

#include <algorithm>
#include <cctype>

#include "kforge/slurm/slurm_client.hpp"
#include "test_cluster.hpp"

namespace kforge::slurm {
namespace {

using testing::ScratchDir;

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

class SlurmBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (const auto reason = testing::why_no_test_cluster()) GTEST_SKIP() << *reason;
    client_ = make_slurm_client(GetParam());
  }

  ArraySubmission submission(const std::string& name, const std::string& body, const std::string& array) const {
    ArraySubmission s;
    s.name = "kforge-test-" + name + "-" + GetParam();
    s.script = "#!/bin/bash\n" + body + "\n";
    s.array = array;
    s.work_dir = scratch_.path().string();
    s.time_limit_minutes = 5;
    return s;
  }

  std::unique_ptr<SlurmClient> client_;
  ScratchDir scratch_;
};

TEST_P(SlurmBackendTest, ThrottledArrayRunsEveryTaskToCompletion) {
  const JobId job = client_->submit_array(
      submission("array", "sleep 1; echo $SLURM_ARRAY_TASK_ID > out.$SLURM_ARRAY_TASK_ID", "0-3%2"));
  const auto outcome = testing::wait_for_array(*client_, job, 4);
  ASSERT_EQ(outcome.tasks.size(), 4U);
  for (std::uint32_t i = 0; i < 4; ++i) {
    const ArrayTaskState& task = outcome.tasks[i];
    EXPECT_EQ(task.task_id, i);
    EXPECT_EQ(task.state, "COMPLETED") << "task " << i << " reason " << task.reason;
    EXPECT_EQ(task.exit_code, 0);
    EXPECT_FALSE(task.node.empty());
    EXPECT_EQ(scratch_.read("out." + std::to_string(i)), std::to_string(i) + "\n");
  }
  EXPECT_LE(outcome.most_running_at_once, 2U) << "throttle %2 was not honoured";
}

TEST_P(SlurmBackendTest, CancellingOneTaskLeavesTheOthersToComplete) {
  const JobId job = client_->submit_array(
      submission("cancel", "if [ $SLURM_ARRAY_TASK_ID = 1 ]; then sleep 300; else sleep 1; fi", "0-2"));
  ASSERT_TRUE(testing::wait_until_running(*client_, job, 1));
  client_->cancel(job, 1);
  const auto outcome = testing::wait_for_array(*client_, job, 3);
  ASSERT_EQ(outcome.tasks.size(), 3U);
  EXPECT_EQ(outcome.tasks[0].state, "COMPLETED");
  EXPECT_EQ(outcome.tasks[1].state, "CANCELLED");
  EXPECT_EQ(outcome.tasks[2].state, "COMPLETED");
  client_->cancel(job, 1);  // cancelling what already ended is not an error
}

TEST_P(SlurmBackendTest, CancellingTheArrayCancelsPendingAndRunningTasks) {
  const JobId job = client_->submit_array(submission("cancel-all", "sleep 300", "0-3%1"));
  ASSERT_TRUE(testing::wait_until_running(*client_, job, 0));
  client_->cancel(job);
  const auto outcome = testing::wait_for_array(*client_, job, 4);
  ASSERT_EQ(outcome.tasks.size(), 4U);
  for (const auto& task : outcome.tasks) EXPECT_EQ(task.state, "CANCELLED") << "task " << task.task_id;
}

TEST_P(SlurmBackendTest, SubmissionOptionsReachTheJob) {
  ArraySubmission s = submission("options", "echo \"$KFORGE_TEST_VALUE $SLURM_JOB_PARTITION\"", "0-1");
  s.partition = "blackwell";
  s.gres = "gpu:b200:1";
  s.cpus_per_task = 1;
  s.ntasks = 1;
  s.comment = "kforge adapter test";
  s.requeue = false;
  s.output = (scratch_.path() / "task-%a.log").string();
  s.environment = {{"KFORGE_TEST_VALUE", "forty-two"}};
  const JobId job = client_->submit_array(s);
  const auto outcome = testing::wait_for_array(*client_, job, 2);
  ASSERT_EQ(outcome.tasks.size(), 2U);
  for (const auto& task : outcome.tasks) EXPECT_EQ(task.state, "COMPLETED") << "reason " << task.reason;
  EXPECT_EQ(scratch_.read("task-0.log"), "forty-two blackwell\n");
  EXPECT_EQ(scratch_.read("task-1.log"), "forty-two blackwell\n");
}

TEST_P(SlurmBackendTest, FailingTaskReportsItsExitCode) {
  const JobId job = client_->submit_array(submission("fail", "exit $((SLURM_ARRAY_TASK_ID + 3))", "0-1"));
  const auto outcome = testing::wait_for_array(*client_, job, 2);
  ASSERT_EQ(outcome.tasks.size(), 2U);
  EXPECT_EQ(outcome.tasks[0].state, "FAILED");
  EXPECT_EQ(outcome.tasks[0].exit_code, 3);
  EXPECT_EQ(outcome.tasks[1].exit_code, 4);
  EXPECT_EQ(outcome.tasks[1].reason, "NonZeroExitCode");
}

TEST_P(SlurmBackendTest, LimitsReportTheConfiguredMaxArraySize) {
  const SlurmLimits limits = client_->limits();
  EXPECT_EQ(limits.max_array_size, testing::configured_max_array_size());
  EXPECT_GT(limits.max_job_count, 0U);
}

TEST_P(SlurmBackendTest, PartitionNodeCountIsTheTestClustersOneNode) {
  EXPECT_EQ(client_->partition_node_count("hopper"), 1U);
  EXPECT_EQ(client_->partition_node_count("blackwell"), 1U);
  EXPECT_THROW(client_->partition_node_count("no-such-partition"), SlurmError);
}

TEST_P(SlurmBackendTest, PartitionNodeGresListsEachNodesGres) {
  const auto hopper = client_->partition_node_gres("hopper");
  ASSERT_EQ(hopper.size(), 1U);
  EXPECT_NE(hopper[0].find("gpu:h100:4"), std::string::npos) << hopper[0];
  EXPECT_NE(hopper[0].find("gpu:b200:4"), std::string::npos) << hopper[0];
  EXPECT_THROW(client_->partition_node_gres("no-such-partition"), SlurmError);
}

// nodes, mem, exclusive and a free-form option (which libslurm hands to sbatch) as the job itself sees them.
TEST_P(SlurmBackendTest, ResourceAndExtraOptionsReachTheJob) {
  ArraySubmission s = submission("resources",
                                 "echo mem=$SLURM_MEM_PER_NODE; scontrol show job $SLURM_JOB_ID | grep -o "
                                 "'OverSubscribe=[A-Z]*\\|MailType=[A-Z_,]*'",
                                 "0");
  s.nodes = 1;
  s.mem = "16M";
  s.exclusive = true;
  s.extra_options = {"--mail-type=FAIL"};
  s.output = (scratch_.path() / "task-%a.log").string();
  const JobId job = client_->submit_array(s);
  const auto outcome = testing::wait_for_array(*client_, job, 1);
  ASSERT_EQ(outcome.tasks.size(), 1U);
  EXPECT_EQ(outcome.tasks[0].state, "COMPLETED") << "reason " << outcome.tasks[0].reason;
  const std::string log = scratch_.read("task-0.log");
  for (const char* seen : {"mem=16\n", "OverSubscribe=NO", "MailType=FAIL"}) {
    EXPECT_NE(log.find(seen), std::string::npos) << "missing " << seen << " in:\n" << log;
  }
}

TEST_P(SlurmBackendTest, ExcludedNodesReachTheJob) {
  ArraySubmission s = submission("exclude", "true", "0");
  s.exclude = "node-that-does-not-exist";
  // Slurm checks the node list at submission: an unknown node is refused with its own message, which proves
  // the list reached the controller (a known node would make the only node of this cluster unusable).
  try {
    client_->submit_array(s);
    FAIL() << "a job excluding an unknown node was accepted";
  } catch (const SlurmError& e) {
    EXPECT_NE(std::string(e.what()).find("node"), std::string::npos) << e.what();
  }
}

TEST_P(SlurmBackendTest, UnknownPartitionIsRejectedWithSlurmsMessage) {
  ArraySubmission s = submission("bad-partition", "true", "0-1");
  s.partition = "no-such-partition";
  try {
    client_->submit_array(s);
    FAIL() << "submission to a nonexistent partition was accepted";
  } catch (const SlurmError& error) {
    EXPECT_NE(lowercase(error.slurm_message()).find("invalid partition"), std::string::npos) << error.what();
    EXPECT_EQ(error.slurm_errno(), ESLURM_INVALID_PARTITION_NAME) << error.what();
    EXPECT_FALSE(error.is_back_pressure());
  }
}

TEST_P(SlurmBackendTest, ArrayBeyondMaxArraySizeIsBackPressure) {
  // MaxArraySize N allows indices 0..N-1.
  const std::string too_large = "0-" + std::to_string(client_->limits().max_array_size);
  try {
    client_->submit_array(submission("too-large", "true", too_large));
    FAIL() << "array " << too_large << " was accepted";
  } catch (const SlurmError& error) {
    EXPECT_TRUE(error.is_back_pressure()) << error.what();
    EXPECT_EQ(error.slurm_errno(), ESLURM_INVALID_ARRAY) << error.what();
  }
}

TEST_P(SlurmBackendTest, UnknownJobHasNoTasks) {
  EXPECT_TRUE(client_->array_task_states(67'000'000U).empty());
  client_->cancel(67'000'000U);  // nothing to cancel is not an error
}

TEST_P(SlurmBackendTest, VersionIsTheControllersRelease) {
  EXPECT_EQ(client_->version().substr(0, 3), compiled_slurm_version().substr(0, 3));
  EXPECT_EQ(client_->backend_name(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Backends, SlurmBackendTest, ::testing::Values("libslurm", "cli"),
                         [](const auto& param_info) { return param_info.param; });

TEST(SlurmClientFactory, AutoChoosesLibslurmWhenItMatchesTheController) {
  if (const auto reason = testing::why_no_test_cluster()) GTEST_SKIP() << *reason;
  const auto cli = make_slurm_client("cli");
  const std::string controller = cli->version();
  const auto chosen = make_slurm_client("auto");
  const bool same_release = controller.substr(0, controller.rfind('.')) ==
                            compiled_slurm_version().substr(0, compiled_slurm_version().rfind('.'));
  EXPECT_EQ(chosen->backend_name(), same_release ? "libslurm" : "cli") << "controller " << controller;
}

TEST(SlurmClientFactory, UnknownBackendNameIsRejected) {
  EXPECT_THROW(make_slurm_client("pbs"), std::invalid_argument);
}

}  // namespace
}  // namespace kforge::slurm
