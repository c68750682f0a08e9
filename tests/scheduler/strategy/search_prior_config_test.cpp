// search.prior: paths are checked where they are written and read into rank-only prior sets.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../config/config_test_util.hpp"
#include "kforge/scheduler/config.hpp"
#include "strategy_prior_sources.hpp"

namespace kforge::scheduler {
namespace {

const std::filesystem::path kA4000 =
    std::filesystem::path(KFORGE_SOURCE_DIR) / "share/data/kernel-spaces/cache/convolution_milo-A4000.json.gz";

TEST(SearchPriorConfig, AMissingCacheIsRejectedAtItsListElement) {
  const std::string error = test::campaign_error(test::kMinimalCampaign + "search:\n  prior: [nowhere.json.gz]\n");
  EXPECT_EQ(error.rfind("c.yaml:9:11: search.prior[0]: no such file: ", 0), 0u) << error;
}

TEST(SearchPriorConfig, AFolderWithoutACampaignIsRejected) {
  const std::string error = test::campaign_error(test::kMinimalCampaign + "search:\n  prior: [/tmp]\n");
  EXPECT_NE(error.find("search.prior[0]: no finished campaign in /tmp (no campaign.h5)"), std::string::npos) << error;
}

TEST(SearchPriorConfig, AScalarIsNotAList) {
  EXPECT_NE(
      test::campaign_error(test::kMinimalCampaign + "search:\n  prior: x.json\n").find("search.prior: expected a list"),
      std::string::npos);
}

TEST(SearchPriorConfig, AKernelTunerCacheIsReadWithItsFailuresAsInfinity) {
  const CampaignConfig c =
      parse_campaign(test::kMinimalCampaign + "search:\n  prior: [" + kA4000.string() + "]\n", "c.yaml");
  ASSERT_EQ(c.search.prior.size(), 1u);
  const std::vector<PriorObservations> sets = read_search_prior(c.search.prior);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].measured.size(), 4362u);
  std::size_t failed = 0;
  for (const auto& [genome, time] : sets[0].measured) failed += !std::isfinite(time);
  EXPECT_EQ(failed, 161u);
  EXPECT_EQ(sets[0].measured[0].first.params.size(), 10u);
}

TEST(SearchPriorConfig, AFileThatIsNotACacheNamesItself) {
  const auto bad = std::filesystem::temp_directory_path() / "kforge-not-a-cache.json";
  { std::ofstream(bad) << "{\"cache\": 3}"; }
  try {
    read_kernel_tuner_prior(bad);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("kforge-not-a-cache.json is not a Kernel Tuner cache"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(bad);
}

}  // namespace
}  // namespace kforge::scheduler
