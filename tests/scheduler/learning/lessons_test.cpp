// Lessons: each parameter value's time relative to the typical time and its failures, operator credit,
// failures grouped by cause with numbers folded, and sentences for the agents' brief.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "kforge/scheduler/learning/learning.hpp"
#include "learning_test_support.hpp"

namespace kforge::scheduler::testing {
namespace {

constexpr double kFailed = std::numeric_limits<double>::infinity();

const jobs::ParameterLesson& lesson(const jobs::Lessons& l, const std::string& parameter, const std::string& value) {
  const auto it = std::find_if(l.parameters.begin(), l.parameters.end(),
                               [&](const auto& p) { return p.parameter == parameter && p.value == value; });
  if (it == l.parameters.end()) throw std::runtime_error("no lesson for " + parameter + "=" + value);
  return *it;
}

TEST(Lessons, FastValueAndFailingValueAreTold) {
  ArchiveView a;
  a.add(generation(0, {record("a", "init", {}, 1.0, "TILE=64;VEC=4"), record("b", "init", {}, 1.0, "TILE=64;VEC=8"),
                       record("c", "init", {}, 4.0, "TILE=8;VEC=4"), record("d", "init", {}, 4.0, "TILE=8;VEC=8")}));
  const jobs::Generation g1 = generation(1, {record("e", "mutation", {"a"}, kFailed, "TILE=128;VEC=4"),
                                             record("f", "mutation", {"b"}, kFailed, "TILE=128;VEC=8")});
  const jobs::Lessons l = derive_lessons(a, g1);
  EXPECT_EQ(lesson(l, "TILE", "64").evaluated, 2);
  EXPECT_LT(lesson(l, "TILE", "64").relative_median, 1.0);  // 1 ms against a typical 2.5 ms
  EXPECT_GT(lesson(l, "TILE", "8").relative_median, 1.0);
  EXPECT_DOUBLE_EQ(lesson(l, "TILE", "8").best_ms, 4.0);
  EXPECT_EQ(lesson(l, "TILE", "128").failed, 2);
  EXPECT_TRUE(std::isnan(lesson(l, "TILE", "128").median_ms));
  const auto says = [&](const std::string& text) {
    return std::any_of(l.summary.begin(), l.summary.end(),
                       [&](const auto& s) { return s.find(text) != std::string::npos; });
  };
  // The evidence behind an effect: geometric mean, sample count and bootstrap interval; none from one sample.
  EXPECT_DOUBLE_EQ(lesson(l, "TILE", "64").relative, 0.4);
  EXPECT_DOUBLE_EQ(lesson(l, "TILE", "64").ci_low, 0.4);
  EXPECT_DOUBLE_EQ(lesson(l, "TILE", "64").ci_high, 0.4);
  EXPECT_GT(lesson(l, "VEC", "4").ci_high, lesson(l, "VEC", "4").ci_low) << "1 and 4 ms: a real spread";
  EXPECT_TRUE(std::isnan(lesson(l, "TILE", "128").ci_low));
  EXPECT_TRUE(
      says("TILE=64 runs at 0.40x the typical time (2 ok, interval 0.40-0.40), TILE=8 at 1.60x (2 ok, "
           "interval 1.60-1.60)."))
      << ::testing::PrintToString(l.summary);
  EXPECT_TRUE(says("TILE=128 failed 2 of 2")) << ::testing::PrintToString(l.summary);
  EXPECT_TRUE(says("Operator mutation: 2 children, 0 ok")) << ::testing::PrintToString(l.summary);
}

TEST(Lessons, FailuresWithTheSameCauseAreOneGroup) {
  ArchiveView a;
  jobs::EvalRecord x = record("x", "init", {}, kFailed), y = record("y", "init", {}, kFailed);
  x.evidence = "error at line 12: expected ';'\nmore";
  y.evidence = "error at line 345: expected ';'";
  const jobs::Lessons l = derive_lessons(a, generation(0, {x, y}));
  ASSERT_EQ(l.failures.size(), 1u);
  EXPECT_EQ(l.failures[0].count, 2);
  EXPECT_EQ(l.failures[0].status, "compile_error");
  EXPECT_EQ(l.failures[0].cause, "error at line #: expected ';'");
  EXPECT_EQ(l.failures[0].example_id, "x");
}

}  // namespace
}  // namespace kforge::scheduler::testing
