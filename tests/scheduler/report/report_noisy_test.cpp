// `kforge report` shows how many records had noisy timing (EvalRecord::timing_noisy) and marks a noisy best.
#include <gtest/gtest.h>

#include <sstream>

#include "kforge/scheduler/report/report.hpp"

using namespace kforge;

namespace {

scheduler::CampaignReport report_with_noisy_best(bool noisy_best) {
  scheduler::CampaignReport r;
  r.campaign = "gemm-host";
  r.generations_done = r.generations_planned = 1;
  r.evaluations = 16;
  r.noisy = 3;
  r.status_counts[jobs::Status::ok] = 16;
  scheduler::GenerationSummary g;
  g.evaluated = 16;
  g.noisy = 3;
  g.status_counts[jobs::Status::ok] = 16;
  r.generations.push_back(g);
  jobs::EvalRecord best;
  best.candidate_id = "0123456789abcdef0123456789abcdef";
  best.status = jobs::Status::ok;
  best.time_median_ms = 1.25;
  best.time_spread_rel = 0.375;
  best.time_spread_iqr = 0.125;
  best.timing_noisy = noisy_best;
  r.best = best;
  r.lineage.push_back({"fedcba9876543210fedcba9876543210", "mutation", 0, "KC=64", 2.5, true});
  r.lineage.push_back({"00000000000000000000000000000000", "init", 0, "KC=32", 3.5, false});
  return r;
}

}  // namespace

TEST(ReportNoisyTiming, TableCountsNoisyRecordsAndMarksANoisyBest) {
  std::ostringstream out;
  scheduler::write_report_table(out, report_with_noisy_best(true));
  const std::string text = out.str();
  EXPECT_NE(text.find("timing noisy 3/16 (18.8%)"), std::string::npos) << text;
  EXPECT_NE(text.find(" noisy "), std::string::npos) << "per-generation column\n" << text;
  EXPECT_NE(text.find("timing NOISY: interquartile spread 12.5%"), std::string::npos) << text;
  EXPECT_NE(text.find("fedcba9876543210fedcba9876543210  g0  mutation  2.5000 ms  (timing noisy)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("00000000000000000000000000000000  g0  init  3.5000 ms\n"), std::string::npos) << text;

  std::ostringstream steady;
  scheduler::write_report_table(steady, report_with_noisy_best(false));
  EXPECT_EQ(steady.str().find("timing NOISY"), std::string::npos) << steady.str();
}

TEST(ReportNoisyTiming, JsonCarriesTheCountsAndTheBestsFlag) {
  std::ostringstream out;
  scheduler::write_report_json(out, report_with_noisy_best(true));
  const std::string json = out.str();
  EXPECT_NE(json.find("\"timing_noisy\":3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"timing_noisy\":true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"time_spread_rel\":0.375"), std::string::npos) << json;
  EXPECT_NE(json.find("\"time_spread_iqr\":0.125"), std::string::npos) << json;
}
