// Record equality and status names.
#include <gtest/gtest.h>

#include <regex>

#include "kforge/jobs/record.hpp"

using kforge::jobs::EvalRecord;
using kforge::jobs::Status;

TEST(JobsStatus, EveryStatusNameRoundTrips) {
  for (Status s : kforge::jobs::kAllStatuses)
    EXPECT_EQ(kforge::jobs::status_from_string(kforge::jobs::to_string(s)), s);
  EXPECT_EQ(kforge::jobs::to_string(Status::cheat_detected), "cheat_detected");
  EXPECT_FALSE(kforge::jobs::status_from_string("OK").has_value());
}

TEST(JobsRecord, UnmeasuredNanFieldsCompareEqual) {
  EvalRecord a, b;
  EXPECT_EQ(a, b);
  a.samples_ms = {1.0, kforge::jobs::kNaN};
  b.samples_ms = {1.0, kforge::jobs::kNaN};
  EXPECT_EQ(a, b);
  b.time_median_ms = 1.0;
  EXPECT_NE(a, b);
  b = a;
  b.samples_ms.push_back(2.0);
  EXPECT_NE(a, b);
  b = a;
  b.evidence = "x";
  EXPECT_NE(a, b);
}

TEST(JobsRecord, FitnessIsInfiniteUnlessOk) {
  EvalRecord r;
  r.time_median_ms = 2.0;
  r.status = Status::wrong_result;
  EXPECT_TRUE(std::isinf(kforge::jobs::fitness_ms(r)));
  r.status = Status::ok;
  EXPECT_EQ(kforge::jobs::fitness_ms(r), 2.0);
}

TEST(JobsRecord, Iso8601NowIsUtcSeconds) {
  EXPECT_TRUE(std::regex_match(kforge::jobs::iso8601_now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}
