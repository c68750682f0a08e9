// The validation set grows with each case that caught a wrong candidate, once per case, up to its cap.
#include <gtest/gtest.h>

#include "kforge/scheduler/learning/learning.hpp"
#include "learning_test_support.hpp"

namespace kforge::scheduler::testing {
namespace {

jobs::EvalRecord caught(const std::string& id, const std::string& failed_case) {
  jobs::EvalRecord r = record(id, "mutation", {}, 1.0);
  r.status = jobs::Status::wrong_result;
  r.failed_case = failed_case;
  return r;
}

TEST(ValidationSet, CaseThatCaughtACandidateJoinsOnce) {
  auto set =
      grow_validation({}, {caught("a", "M=7 seed=1"), record("b", "mutation", {}, 2.0), caught("c", "M=7 seed=1")}, 3);
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set[0].text, "M=7 seed=1");
  EXPECT_EQ(set[0].added_generation, 3);
  EXPECT_EQ(set[0].caught_id, "a");
  EXPECT_EQ(set[0].caught_status, "wrong_result");
  set = grow_validation(set, {caught("d", "M=9 seed=2")}, 4);
  ASSERT_EQ(set.size(), 2u);
  EXPECT_EQ(set[1].added_generation, 4);
}

TEST(ValidationSet, StopsGrowingAtItsCap) {
  std::vector<jobs::EvalRecord> records;
  for (std::size_t i = 0; i < kMaxValidationCases + 5; ++i)
    records.push_back(caught("x", "M=" + std::to_string(i) + " seed=1"));
  const auto set = grow_validation({}, records, 1);
  EXPECT_EQ(set.size(), kMaxValidationCases);
  EXPECT_EQ(set.front().text, "M=0 seed=1");  // the earliest are kept
}

}  // namespace
}  // namespace kforge::scheduler::testing
