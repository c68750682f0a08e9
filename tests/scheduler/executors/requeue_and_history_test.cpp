// The Slurm executor's view of a node failure: multi-node node lists, the retry's --exclude, Slurm's own
// requeue of a task seen between polls, and that story reaching the evidence of the task's records.
#include <gtest/gtest.h>

#include "kforge/scheduler/executors/task_history.hpp"
#include "slurm/batch_script.hpp"
#include "slurm/node_list.hpp"
#include "slurm/requeue_watch.hpp"

using namespace kforge::scheduler;
using namespace kforge::scheduler::slurm_detail;
using kforge::slurm::ArrayTaskState;

namespace {
ArrayTaskState state(std::uint32_t task, const std::string& s, const std::string& node,
                     const std::string& reason = "None") {
  ArrayTaskState out;
  out.task_id = task;
  out.state = s;
  out.node = node;
  out.reason = reason;
  return out;
}
}  // namespace

TEST(NodeList, ExpandsRangesListsAndPaddingAndKeepsWhatItCannotRead) {
  using V = std::vector<std::string>;
  EXPECT_EQ(expand_node_list("kfnode[1-2]"), (V{"kfnode1", "kfnode2"}));
  EXPECT_EQ(expand_node_list("gpu[08-10,12]-ib,login1"), (V{"gpu08-ib", "gpu09-ib", "gpu10-ib", "gpu12-ib", "login1"}));
  EXPECT_EQ(expand_node_list("n1"), (V{"n1"}));
  EXPECT_EQ(expand_node_list(""), (V{}));
  EXPECT_EQ(expand_node_list("n[3-1]"), (V{"n[3-1]"}));              // reversed range: kept as written
  EXPECT_EQ(expand_node_list("r[1-2]n[1-2]"), (V{"r[1-2]n[1-2]"}));  // two dimensions: kept as written
}

TEST(ExcludeList, CountsTheNodesOfAMultiNodeTaskAndLeavesEnoughForOneTask) {
  // A two-node task failed on kfnode[1-2] of a three-node partition: excluding both would leave one node, and
  // Slurm refuses a two-node job there ("Requested node configuration is not available").
  EXPECT_EQ(exclude_list({"kfnode[1-2]"}, 3, 2), "");
  EXPECT_EQ(exclude_list({"kfnode[1-2]"}, 4, 2), "kfnode1,kfnode2");
  EXPECT_EQ(exclude_list({"kfnode[1-2]", "kfnode2"}, 4, 2), "kfnode1,kfnode2");  // counted once
  EXPECT_EQ(exclude_list({"kfnode[1-2]"}, 2, 1), "");                            // two names, two nodes
  EXPECT_EQ(exclude_list({"n01"}, 3, 0), "n01");                                 // 0 taken as 1
}

TEST(RequeueWatch, SeesATaskThatRanBackInTheQueueOnce) {
  RequeueWatch watch;
  EXPECT_FALSE(watch.observe(812, state(3, "PENDING", "", "Resources")));
  EXPECT_FALSE(watch.observe(812, state(3, "RUNNING", "kfnode[1-2]")));
  EXPECT_FALSE(watch.observe(812, state(3, "COMPLETING", "kfnode2")));  // completing nodes drop from the list
  const auto requeue = watch.observe(812, state(3, "PENDING", "kfnode2", "BeginTime"));
  ASSERT_TRUE(requeue);
  EXPECT_EQ(requeue->nodes, "kfnode[1-2]");
  EXPECT_EQ(requeue->text, "Slurm requeued array task 812_3, which ran on kfnode[1-2] (now PENDING, reason BeginTime)");
  EXPECT_FALSE(watch.observe(812, state(3, "PENDING", "", "BeginTime")));  // told once
  EXPECT_FALSE(watch.observe(812, state(3, "RUNNING", "kfnode[1,3]")));
  EXPECT_FALSE(watch.observe(812, state(3, "COMPLETED", "kfnode[1,3]")));
}

TEST(RequeueWatch, SeesARequeueMissedBetweenPollsByTheNodesAndKeepsTasksApart) {
  RequeueWatch watch;
  EXPECT_FALSE(watch.observe(7, state(0, "RUNNING", "n1")));
  EXPECT_FALSE(watch.observe(7, state(1, "RUNNING", "n2")));
  EXPECT_FALSE(watch.observe(8, state(0, "RUNNING", "n3")));
  const auto moved = watch.observe(7, state(0, "RUNNING", "n3"));  // requeued and started again between two polls
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->text, "Slurm requeued array task 7_0, which ran on n1 (now RUNNING on n3)");
  EXPECT_TRUE(watch.observe(7, state(1, "REQUEUED", "n2")));
  EXPECT_FALSE(watch.observe(8, state(0, "COMPLETED", "n3")));  // an ordinary end is no requeue
}

TEST(TaskHistory, GoesOnItsOwnLineIntoTheEvidenceOfThatTasksRecordsOnly) {
  kforge::jobs::TaskManifest t0, t1;
  t0.task = 0;
  t0.target = t1.target = "hopper";
  t1.task = 1;
  t0.candidates.resize(2);
  t0.candidates[0].id = "aa";
  t0.candidates[1].id = "bb";
  t1.candidates.resize(1);
  t1.candidates[0].id = "cc";
  std::vector<kforge::jobs::EvalRecord> records(4);
  records[0].candidate_id = "aa";
  records[0].target = "hopper";
  records[0].evidence = "compile error: x";
  records[1].candidate_id = "bb";
  records[1].target = "hopper";
  records[2].candidate_id = "cc";
  records[2].target = "hopper";
  records[3].candidate_id = "aa";
  records[3].target = "blackwell";  // the same candidate on another island's target: another task's record
  add_task_history(records, {t0, t1}, {{0, "Slurm requeued array task 5_0, which ran on n2"}, {1, ""}});
  EXPECT_EQ(records[0].evidence, "compile error: x\nscheduler: task 0: Slurm requeued array task 5_0, which ran on n2");
  EXPECT_EQ(records[1].evidence, "scheduler: task 0: Slurm requeued array task 5_0, which ran on n2");
  EXPECT_EQ(records[2].evidence, "");
  EXPECT_EQ(records[3].evidence, "");
}
