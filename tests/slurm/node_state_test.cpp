// Which nodes a retry avoids (task_postmortem.hpp: NodeState::usable): sinfo's states of a node that died under a
// task, one an admin took out, and ordinary busy ones.
#include <gtest/gtest.h>

#include "kforge/slurm/task_postmortem.hpp"

using kforge::slurm::NodeState;

TEST(NodeState, BusyOrIdleNodesThatRespondAreUsable) {
  for (const char* state : {"idle", "mixed", "allocated", "completing", "mixed-"}) {
    EXPECT_TRUE((NodeState{"n1", state, ""}.usable())) << state;
  }
}

TEST(NodeState, NotRespondingDownDrainedOrFailingNodesAreNot) {
  // "*": the controller's pings go unanswered (a crashed slurmd, a link down) before SlurmdTimeout marks it down.
  for (const char* state : {"idle*", "mixed*", "allocated*", "down*", "down", "drained", "draining", "drained*", "fail",
                            "failing", "inval", "maint", "reboot^", "powered_down", "future", "unknown*"}) {
    EXPECT_FALSE((NodeState{"n1", state, "Not responding"}.usable())) << state;
  }
}
