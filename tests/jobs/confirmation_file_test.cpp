// DIR/confirmation.h5 (kforge/jobs/confirmation.hpp): what is written reads back exactly, NaN intervals included,
// and a reader refuses another campaign's confirmation or another kind of file in its place.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/confirmation.hpp"
#include "kforge/jobs/manifest.hpp"

namespace fs = std::filesystem;
using namespace kforge::jobs;

namespace {

Confirmation sample_confirmation() {
  Confirmation c;
  c.provenance.version = "test";
  c.provenance.campaign = "gemm-small";
  c.provenance.campaign_id = "0123456789abcdef0123456789abcdef";
  c.generations = 2;
  c.top = 2;
  c.rounds = 3;
  c.resamples = 10000;
  c.seed = 0xfedcba9876543210ULL;  // above INT64_MAX: stored as text
  c.speedups.push_back({0, "host", 1, "aaa", "MC=32", "reference", 3, 2.1, 1.9, 2.3, 0.05, 0.105, 2.4, "faster"});
  c.speedups.push_back({0, "host", 2, "bbb", "MC=16", "openblas", 1, 0.9, kNaN, kNaN, 0.06, 0.054, 1.1, "not_faster"});
  for (int round = 0; round < 3; ++round) {
    c.samples.push_back({0, "host", round, "aaa", "ok", 0.05 + 0.001 * round});
    c.samples.push_back({0, "host", round, "baseline:reference", "ok", 0.1});
  }
  c.samples.push_back({0, "host", 2, "bbb", "timeout", kNaN});
  return c;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

TEST(ConfirmationFile, RoundTripsEverySpeedupAndSample) {
  const fs::path dir = fs::temp_directory_path() / ("kforge-confirm-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Confirmation c = sample_confirmation();
  write_confirmation(dir / kConfirmationFile, c);
  const Confirmation back = read_confirmation(dir / kConfirmationFile, c.provenance.campaign_id);
  EXPECT_EQ(back.generations, 2);
  EXPECT_EQ(back.top, 2);
  EXPECT_EQ(back.rounds, 3);
  EXPECT_EQ(back.resamples, 10000);
  EXPECT_EQ(back.seed, c.seed);
  EXPECT_DOUBLE_EQ(back.confidence, 0.95);
  ASSERT_EQ(back.speedups.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto &a = c.speedups[i], &b = back.speedups[i];
    EXPECT_EQ(a.candidate_id, b.candidate_id);
    EXPECT_EQ(a.baseline, b.baseline);
    EXPECT_EQ(a.verdict, b.verdict);
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_TRUE(same(a.speedup, b.speedup) && same(a.ci_low, b.ci_low) && same(a.ci_high, b.ci_high));
  }
  ASSERT_EQ(back.samples.size(), c.samples.size());
  EXPECT_EQ(back.samples.back().status, "timeout");
  EXPECT_TRUE(std::isnan(back.samples.back().time_ms));

  // Another campaign's confirmation is refused, naming the file.
  try {
    read_confirmation(dir / kConfirmationFile, "ffffffffffffffffffffffffffffffff");
    ADD_FAILURE() << "another campaign's confirmation was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("confirmation.h5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("another campaign"), std::string::npos) << e.what();
  }
  // A shard put in its place is not a confirmation.
  Shard shard;
  shard.provenance.campaign_id = c.provenance.campaign_id;
  write_shard(dir / "not-a-confirmation.h5", shard);
  EXPECT_THROW(read_confirmation(dir / "not-a-confirmation.h5"), std::runtime_error);
  // Bytes changed in the middle of the file: refused, never read as figures.
  {
    std::fstream f(dir / kConfirmationFile, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(dir / kConfirmationFile) / 2));
    f.write("garbage!garbage!", 16);
  }
  EXPECT_THROW(read_confirmation(dir / kConfirmationFile, c.provenance.campaign_id), std::runtime_error);
  fs::remove_all(dir);
}

// A confirmation round is an ordinary manifest with confirm_round set; a generation's task has none (-1).
TEST(ConfirmationFile, ManifestCarriesItsRoundAndOrdinaryTasksDoNot) {
  const fs::path dir = fs::temp_directory_path() / ("kforge-confirm-manifest-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  TaskManifest m;
  m.campaign = "c";
  m.target = "host";
  m.family = "gemm";
  m.backend = "host";
  m.shard_path = "../shards/0003.h5";
  write_manifest(dir / "plain.yaml", m);
  EXPECT_EQ(read_manifest(dir / "plain.yaml").confirm_round, -1);
  m.generation = -1;
  m.confirm_round = 3;
  write_manifest(dir / "round.yaml", m);
  EXPECT_EQ(read_manifest(dir / "round.yaml"), m);
  fs::remove_all(dir);
}
