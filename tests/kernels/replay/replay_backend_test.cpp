// ReplayBackend: measured configurations verify and time with their cached samples; failures map to statuses.
#include <gtest/gtest.h>

#include <fstream>

#include "kforge/kernels/backend.hpp"
#include "replay_paths.hpp"

namespace kforge::kernels {
namespace {

struct ReplayFixture : ::testing::Test {
  void SetUp() override {
    const auto dir = std::filesystem::path(KFORGE_BINARY_DIR) / "replay_backend_test";
    std::filesystem::create_directories(dir);
    settings.replay_cache = (dir / "space.json").string();
    std::ofstream(settings.replay_cache) << R"({"device_name":"GPU X","tune_params_keys":["a"],
      "tune_params":{"a":[1,2,3,4]},
      "cache":{"1":{"a":1,"time":2.0,"times":[1.9,2.0,2.1]},"2":{"a":2,"time":"RuntimeFailedConfig"},
               "3":{"a":3,"time":"CompilationFailedConfig"}}})";
    ctx.settings = &settings;
    backend = make_backend("replay", "convolution");
  }

  jobs::Candidate candidate(std::int64_t a) const {
    jobs::Candidate c;
    c.backend = "replay";
    c.family = "convolution";
    c.genome.params["a"] = a;
    return c;
  }

  jobs::EvalSettings settings;
  EvalContext ctx;
  std::unique_ptr<Backend> backend;
};

TEST_F(ReplayFixture, MeasuredConfigurationVerifiesAndReturnsItsSamples) {
  EXPECT_EQ(backend->name(), "replay");
  EXPECT_EQ(backend->family(), "convolution");
  const jobs::Candidate c = candidate(1);
  EXPECT_EQ(backend->render(c), "a=1");
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  backend->load(compiled);
  EXPECT_EQ(backend->verify(ctx).status, jobs::Status::ok);
  const TimeResult t = backend->time(ctx);
  EXPECT_EQ(t.status, jobs::Status::ok);
  EXPECT_EQ(t.samples_ms, (std::vector<double>{1.9, 2.0, 2.1}));
}

TEST_F(ReplayFixture, RuntimeFailureVerifiesAsCrash) {
  const jobs::Candidate c = candidate(2);
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  ASSERT_TRUE(compiled.ok);
  backend->load(compiled);
  const VerifyResult v = backend->verify(ctx);
  EXPECT_EQ(v.status, jobs::Status::crash);
  EXPECT_NE(v.evidence.find("RuntimeFailedConfig"), std::string::npos);
}

TEST_F(ReplayFixture, CompilationFailureFailsCompile) {
  const jobs::Candidate c = candidate(3);
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  EXPECT_FALSE(compiled.ok);
  EXPECT_EQ(compiled.status, jobs::Status::compile_error);
}

TEST_F(ReplayFixture, ConfigurationOutsideTheSpaceIsRejected) {
  const jobs::Candidate c = candidate(4);
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  EXPECT_FALSE(compiled.ok);
  EXPECT_EQ(compiled.status, jobs::Status::resource_reject);
  EXPECT_NE(compiled.log.find("not in the measured space"), std::string::npos);
}

TEST_F(ReplayFixture, MissingCacheSettingIsACompileErrorNamingTheKey) {
  settings.replay_cache.clear();
  const jobs::Candidate c = candidate(1);
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  EXPECT_FALSE(compiled.ok);
  EXPECT_NE(compiled.log.find("replay_cache"), std::string::npos);
}

TEST(ReplayBackendMeasuredSpace, TimesAKnownConvolutionConfigurationFromTheA4000Cache) {
  const auto cache = testing::cache_file("convolution_milo-A4000");
  KFORGE_REQUIRE_FILE(cache);
  jobs::EvalSettings settings;
  settings.replay_cache = cache.string();
  EvalContext ctx;
  ctx.settings = &settings;
  auto backend = make_backend("replay", "convolution");
  jobs::Candidate c;
  c.genome.params = {{"block_size_x", std::int64_t{16}},  {"block_size_y", std::int64_t{1}},
                     {"tile_size_x", std::int64_t{1}},    {"tile_size_y", std::int64_t{1}},
                     {"read_only", std::int64_t{0}},      {"use_padding", std::int64_t{0}},
                     {"use_shmem", std::int64_t{0}},      {"use_cmem", std::int64_t{1}},
                     {"filter_height", std::int64_t{15}}, {"filter_width", std::int64_t{15}}};
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  backend->load(compiled);
  ASSERT_EQ(backend->verify(ctx).status, jobs::Status::ok);
  EXPECT_EQ(backend->time(ctx).samples_ms.size(), 32u);
}

}  // namespace
}  // namespace kforge::kernels
