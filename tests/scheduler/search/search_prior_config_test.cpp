// search.prior: paths are checked where they are written and read into rank-only prior sets.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../config/config_test_util.hpp"
#include "../learning/learning_test_support.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/search/search_space.hpp"
#include "kforge/scheduler/search/strategy_children.hpp"
#include "kforge/scheduler/search/strategy_prior_sources.hpp"

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

TEST(SearchPriorConfig, AScalarOtherThanNoneIsNotAList) {
  const std::string error = test::campaign_error(test::kMinimalCampaign + "search:\n  prior: x.json\n");
  EXPECT_NE(error.find("search.prior: expected none or a list, got"), std::string::npos) << error;
}

TEST(SearchPriorConfig, WithoutPriorTheCatalogIsTheSourceNoneTurnsItOffAListReplacesIt) {
  EXPECT_EQ(parse_campaign(test::kMinimalCampaign, "c.yaml").search.prior_from, "catalog");
  const CampaignConfig off = parse_campaign(test::kMinimalCampaign + "search:\n  prior: none\n", "c.yaml");
  EXPECT_EQ(off.search.prior_from, "none");
  EXPECT_TRUE(off.search.prior.empty());
  const CampaignConfig listed =
      parse_campaign(test::kMinimalCampaign + "search:\n  prior: [" + kA4000.string() + "]\n", "c.yaml");
  EXPECT_EQ(listed.search.prior_from, "listed");
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

// Islands of one campaign are each other's prior (strategy_children.cpp): an island on one GPU that has measured
// nothing yet starts from the configurations the other island found fastest, not from random ones.
TEST(IslandPrior, AnIslandStartsFromTheOtherIslandsFastestConfigurations) {
  CampaignConfig c = testing::campaign();
  c.family = "gemm";
  c.backend = "host";
  c.targets = {"hopper", "blackwell"};
  c.search.strategy = "surrogate";
  SpaceSpec spec;
  ParameterSpec p{"P", {}, {}}, q{"Q", {}, {}};
  for (std::int64_t v = 1; v <= 16; ++v) p.values.emplace_back(v);
  q.values = {std::int64_t{1}, std::int64_t{2}};
  spec.parameters = {p, q};
  const SearchSpace space(spec);
  // Hopper's generation 0: eight configurations, P=13;Q=2 the fastest, then P=7;Q=1.
  std::vector<jobs::EvalRecord> hopper;
  const std::vector<std::pair<std::string, double>> measured = {{"P=13;Q=2", 1.0}, {"P=7;Q=1", 1.5}, {"P=1;Q=1", 9.0},
                                                                {"P=2;Q=2", 8.0},  {"P=4;Q=1", 7.0}, {"P=9;Q=2", 6.0},
                                                                {"P=15;Q=1", 5.0}, {"P=16;Q=2", 4.0}};
  for (const auto& [params, ms] : measured) {
    hopper.push_back(testing::record("h" + params, "surrogate", {}, ms, params));
    hopper.back().target = "hopper";
  }
  // The first two of a generation of 8 (a quarter of a batch may follow a prior blindly: docs/catalog.md).
  auto children_of = [&](const ArchiveView& archive) {
    std::set<std::string> seen;
    std::set<std::string> out;
    for (const auto& child : strategy_children(c, space, archive, 1, 1, 8, seen))
      if (out.size() < 2) out.insert(child.genome.to_text());
    return out;
  };
  ArchiveView with_hopper;
  with_hopper.add(testing::generation(0, hopper));
  EXPECT_EQ(children_of(with_hopper), (std::set<std::string>{"P=13;Q=2", "P=7;Q=1"}));
  ArchiveView cold;  // the control: without Hopper's measurements Blackwell's first two are not those
  EXPECT_NE(children_of(cold), (std::set<std::string>{"P=13;Q=2", "P=7;Q=1"}));
}

}  // namespace
}  // namespace kforge::scheduler
