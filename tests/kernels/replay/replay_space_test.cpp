// ReplaySpace reads Kernel Tuner caches: counts, parameters, lookups of measured, failed and invalid configs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "kforge/kernels/replay_space.hpp"
#include "replay_paths.hpp"

namespace kforge::kernels {
namespace {

using testing::cache_file;
using testing::kernel_spaces_dir;

const ReplaySpace& convolution_a100() {
  static const ReplaySpace space =
      ReplaySpace::load(cache_file("convolution_milo-A100"), kernel_spaces_dir() / "convolution_milo.json");
  return space;
}

jobs::Genome convolution_genome(std::int64_t bx, std::int64_t by, std::int64_t tx, std::int64_t ty, std::int64_t ro,
                                std::int64_t pad, std::int64_t shmem) {
  jobs::Genome g;
  g.params = {{"block_size_x", bx},
              {"block_size_y", by},
              {"tile_size_x", tx},
              {"tile_size_y", ty},
              {"read_only", ro},
              {"use_padding", pad},
              {"use_shmem", shmem},
              {"use_cmem", std::int64_t{1}},
              {"filter_height", std::int64_t{15}},
              {"filter_width", std::int64_t{15}}};
  return g;
}

TEST(ReplaySpace, LoadsConvolutionCacheWithAllConfigurationsAndFailures) {
  KFORGE_REQUIRE_FILE(cache_file("convolution_milo-A100"));
  const ReplaySpace& s = convolution_a100();
  EXPECT_EQ(s.entries().size(), 4362u);
  EXPECT_EQ(s.failed_count(), 161u);
  ASSERT_EQ(s.parameters().size(), 10u);
  EXPECT_EQ(s.parameters()[0].name, "block_size_x");
  EXPECT_EQ(s.parameters()[0].values.size(), 16u);
  EXPECT_EQ(s.device_name(), "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(s.constraints().size(), 4u);  // kept as text from convolution_milo.json
}

TEST(ReplaySpace, LoadsDedispersionCache) {
  KFORGE_REQUIRE_FILE(cache_file("dedispersion_milo-MI250X"));
  const ReplaySpace s = ReplaySpace::load(cache_file("dedispersion_milo-MI250X"));
  EXPECT_EQ(s.entries().size(), 11130u);
  EXPECT_EQ(s.failed_count(), 0u);
  EXPECT_TRUE(std::isfinite(s.best_time_ms()));
}

TEST(ReplaySpace, LookupOfAKnownKeyReturnsItsMeasuredTime) {
  KFORGE_REQUIRE_FILE(cache_file("convolution_milo-A100"));
  const ReplayLookup r = convolution_a100().lookup(convolution_genome(16, 1, 1, 1, 0, 0, 0));
  ASSERT_EQ(r.outcome, ReplayOutcome::measured);
  EXPECT_NEAR(r.time_ms, 3.8753279224038124, 1e-12);
  ASSERT_NE(r.entry, nullptr);
  EXPECT_EQ(r.entry->samples_ms.size(), 32u);
}

TEST(ReplaySpace, FailedConfigurationIsReportedAsFailed) {
  KFORGE_REQUIRE_FILE(cache_file("convolution_milo-A100"));
  const ReplaySpace& s = convolution_a100();
  const auto failed = std::find_if(s.entries().begin(), s.entries().end(),
                                   [](const ReplayEntry& e) { return e.outcome != ReplayOutcome::measured; });
  ASSERT_NE(failed, s.entries().end());
  const ReplayLookup r = s.lookup(failed->genome);
  EXPECT_NE(r.outcome, ReplayOutcome::measured);
  EXPECT_NE(r.outcome, ReplayOutcome::not_in_space);
  EXPECT_TRUE(std::isinf(r.time_ms));
  EXPECT_FALSE(r.entry->failure.empty());
}

TEST(ReplaySpace, ConfigurationViolatingAConstraintIsNotInTheSpace) {
  KFORGE_REQUIRE_FILE(cache_file("convolution_milo-A100"));
  // block_size_x * block_size_y = 256 * 16 > 1024 violates the space's constraint.
  const jobs::Genome g = convolution_genome(256, 16, 1, 1, 0, 0, 0);
  EXPECT_EQ(convolution_a100().lookup(g).outcome, ReplayOutcome::not_in_space);
  EXPECT_FALSE(convolution_a100().contains(g));
}

TEST(ReplaySpace, ReadsAPlainJsonCacheAndRejectsOneWithoutTuneParams) {
  const auto dir = std::filesystem::path(KFORGE_BINARY_DIR) / "replay_space_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tiny.json") << R"({"device_name":"d","tune_params_keys":["a","b"],
    "tune_params":{"a":[1,2],"b":["x","y"]},
    "cache":{"1,x":{"a":1,"b":"x","time":2.5,"times":[2.4,2.6]},"2,y":{"a":2,"b":"y","time":"RuntimeFailedConfig"}}})";
  const ReplaySpace s = ReplaySpace::load(dir / "tiny.json");
  EXPECT_EQ(s.entries().size(), 2u);
  EXPECT_DOUBLE_EQ(s.best_time_ms(), 2.5);
  jobs::Genome g;
  g.params = {{"a", std::int64_t{2}}, {"b", std::string("y")}};
  EXPECT_EQ(s.lookup(g).outcome, ReplayOutcome::runtime_failed);
  std::ofstream(dir / "bad.json") << R"({"cache":{}})";
  EXPECT_THROW(ReplaySpace::load(dir / "bad.json"), std::runtime_error);
  EXPECT_THROW(ReplaySpace::load(dir / "missing.json.gz"), std::runtime_error);
}

}  // namespace
}  // namespace kforge::kernels
