// Task manifests: exact YAML round trip, atomic writes and errors that name the file and key.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "archive_samples.hpp"
#include "kforge/jobs/manifest.hpp"

using kforge::jobs::TaskManifest;
using kforge::jobs::testing::ScratchDir;

namespace {

TaskManifest full_manifest() {
  TaskManifest m;
  m.campaign = "gemm-demo";
  m.generation = 7;
  m.island = 2;
  m.task = 13;
  m.target = "hopper";
  m.family = "gemm";
  m.backend = "cuda";
  m.seed = std::numeric_limits<std::uint64_t>::max() - 12345;
  m.shard_path = "../shards/0013.h5";
  auto& s = m.settings;
  s.wall_timeout_s = 0.1;
  s.cpu_limit_s = 1.0 / 3.0;
  s.memory_limit_mb = 4096;
  s.file_limit_mb = 7;
  s.compile_timeout_s = 1e-300;
  s.warmup = 3;
  s.min_repeats = 5;
  s.max_repeats = 50;
  s.target_spread = 0.015625;
  s.time_cap_s = 12.5;
  s.problem = {{"M", 4096}, {"N", 1}, {"K", 9007199254740993LL}};
  s.baselines = {"reference", "cublas"};
  s.compiler = "g++-12";
  s.compile_flags = "-O3 -march=native -DX=\"y\"";
  s.compile_only = true;
  for (int i = 0; i < 3; ++i) m.candidates.push_back(kforge::jobs::testing::sample_candidate(i, 7));
  m.candidates[1].parents.clear();
  m.candidates[1].source = "  leading spaces\r\nno final newline\ttab \x01 ünïcödé";
  m.candidates[2].source = "";
  return m;
}

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_error_mentions(const std::filesystem::path& p, const std::string& what) {
  try {
    kforge::jobs::read_manifest(p);
    ADD_FAILURE() << "read_manifest accepted " << p;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(JobsManifest, RoundTripIsExact) {
  ScratchDir dir("manifest");
  auto path = dir.path() / "task.yaml";
  TaskManifest m = full_manifest();
  kforge::jobs::write_manifest(path, m);
  EXPECT_EQ(kforge::jobs::read_manifest(path), m);
}

TEST(JobsManifest, EngineSpecRoundTripsExactly) {
  ScratchDir dir("manifest");
  auto path = dir.path() / "task.yaml";
  TaskManifest m = full_manifest();
  m.family = "engine";
  kforge::jobs::EngineSpec& e = m.settings.engine;
  e.model = {.architecture = "kimi-linear",
             .layers = 6,
             .hidden = 384,
             .heads = 6,
             .kv_heads = 2,
             .head_dim = 64,
             .mlp_hidden = 1024,
             .vocab = 4096,
             .tied_embeddings = false,
             .qkv_bias = true,
             .qk_norm = true,
             .attention_every = 3,
             .rope_theta = 1e6 / 3.0,
             .rope_scaling_factor = 32.0,
             .rope_low_freq_factor = 1.0 / 3.0,
             .rope_high_freq_factor = 4.0,
             .rope_original_context = 8192,
             .norm_eps = 1e-6,
             .weight_seed = 18446744073709551615ull,
             .weights_file = "/data/w eights.safetensors",
             .path = "/data/a model: folder"};
  e.workload = {.seed = 7,
                .requests = 24,
                .prompt_min = 8,
                .prompt_max = 96,
                .output_min = 4,
                .output_max = 32,
                .concurrency = 8,
                .arrival_rate = 0.1,
                .objective = "output_tokens_per_s",
                .slo_p99_itl_ms = 12.5,
                .slo_p99_ttft_ms = 1.0 / 7.0};
  kforge::jobs::write_manifest(path, m);
  EXPECT_EQ(kforge::jobs::read_manifest(path), m);
  // a kernel campaign's manifest carries no engine block at all
  m.settings.engine = {};
  kforge::jobs::write_manifest(path, m);
  EXPECT_EQ(file_text(path).find("engine:"), std::string::npos);
}

TEST(JobsManifest, DefaultManifestRoundTrips) {
  ScratchDir dir("manifest");
  auto path = dir.path() / "task.yaml";
  kforge::jobs::write_manifest(path, TaskManifest{});
  EXPECT_EQ(kforge::jobs::read_manifest(path), TaskManifest{});
}

TEST(JobsManifest, SourcesAreReadableLiteralBlocks) {
  ScratchDir dir("manifest");
  auto path = dir.path() / "task.yaml";
  kforge::jobs::write_manifest(path, full_manifest());
  std::string text = file_text(path);
  EXPECT_NE(text.find("source: |\n      // candidate 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("genome: KC=64;alpha=0.10000000000000001;order=\"i,k;j\""), std::string::npos) << text;
}

TEST(JobsManifest, WriteLeavesNoTempFileAndReplacesOldManifest) {
  ScratchDir dir("manifest");
  auto path = dir.path() / "task.yaml";
  kforge::jobs::write_manifest(path, TaskManifest{});
  TaskManifest m = full_manifest();
  kforge::jobs::write_manifest(path, m);
  EXPECT_EQ(kforge::jobs::read_manifest(path), m);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(JobsManifest, MissingFileNamesTheFile) {
  ScratchDir dir("manifest");
  expect_error_mentions(dir.path() / "absent.yaml", "missing");
}

TEST(JobsManifest, MissingKeyNamesFileAndKey) {
  ScratchDir dir("manifest");
  auto path = dir.path() / "task.yaml";
  kforge::jobs::write_manifest(path, full_manifest());
  std::string text = file_text(path);
  const std::size_t line = text.find("  warmup:");
  ASSERT_NE(line, std::string::npos) << text;
  text.erase(line, text.find('\n', line) - line + 1);
  std::ofstream(path) << text;
  expect_error_mentions(path, "settings.warmup");
}

TEST(JobsManifest, WrongTypeAndBadYamlNameTheFile) {
  ScratchDir dir("manifest");
  auto path = dir.path() / "task.yaml";
  kforge::jobs::write_manifest(path, TaskManifest{});
  std::string text = file_text(path);
  text.replace(text.find("task: 0"), 7, "task: many");
  std::ofstream(path) << text;
  expect_error_mentions(path, "'task'");
  std::ofstream(path) << "campaign: [unclosed\n";
  expect_error_mentions(path, "not valid YAML");
}

TEST(JobsManifest, ShardPathResolvesAgainstManifestFolder) {
  TaskManifest m;
  m.shard_path = "../shards/0001.h5";
  EXPECT_EQ(kforge::jobs::resolve_shard_path("/c/g0001/tasks/0001.yaml", m), "/c/g0001/tasks/../shards/0001.h5");
  m.shard_path = "/abs/0001.h5";
  EXPECT_EQ(kforge::jobs::resolve_shard_path("/c/g0001/tasks/0001.yaml", m), "/abs/0001.h5");
}
