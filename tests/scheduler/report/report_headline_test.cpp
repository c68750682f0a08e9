// The report's headline quotes the confirmed interval of `kforge confirm` (report.hpp, headline_of).
#include <gtest/gtest.h>

#include "kforge/scheduler/report/report.hpp"

namespace ks = kforge::scheduler;

// The report's headline quotes the confirmed figure, and calls a win whose interval includes 1.0 not faster.
TEST(ReportHeadline, UsesTheConfirmedIntervalOverTheCampaignMeasurement) {
  ks::CampaignReport r;
  r.generations_done = 2;
  kforge::jobs::EvalRecord best;
  best.candidate_id = "abc";
  best.target = "host";
  best.speedup = 1.8;  // one lucky measurement
  r.best = best;
  auto h = ks::headline_of(r);
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->confirmed);
  EXPECT_EQ(h->verdict, "unconfirmed");

  kforge::jobs::Confirmation c;
  c.generations = 2;
  c.speedups.push_back({0, "host", 1, "abc", "", "openblas", 10, 0.7, 0.6, 0.8, 1, 1, 1, "slower"});
  c.speedups.push_back({0, "host", 1, "abc", "", "reference", 10, 1.01, 0.95, 1.07, 1, 1, 1.8, "not_faster"});
  r.confirmation = c;
  h = ks::headline_of(r);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->confirmed);
  EXPECT_EQ(h->baseline, "reference");
  EXPECT_EQ(h->text, "not faster than reference (interval 0.95-1.07)");

  r.confirmation_note = "the confirmation covers 1 of 2 generations";  // stale: never quoted
  EXPECT_FALSE(ks::headline_of(r)->confirmed);
}
