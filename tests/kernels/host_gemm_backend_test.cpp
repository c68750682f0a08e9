// The host gemm backend on well-behaved candidates: render -> compile -> load -> verify -> time, in-process.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "host_gemm_test_support.hpp"

namespace kforge::kernels {
namespace {

using testing::GemmGenome;

// Compiles, loads and verifies one candidate in its own scratch folder; returns the verification.
VerifyResult compile_and_verify(Backend& backend, const jobs::Candidate& c, const jobs::EvalSettings& s,
                                const testing::ScratchDir& scratch, const std::string& name) {
  const EvalContext ctx = testing::context(s, scratch.sub(name));
  const CompileResult compiled = backend.compile(backend.render(c), c, ctx);
  EXPECT_TRUE(compiled.ok) << name << ":\n" << compiled.log;
  if (!compiled.ok) return {};
  EXPECT_EQ(compiled.status, jobs::Status::ok);
  EXPECT_GT(compiled.compile_ms, 0.0);
  EXPECT_EQ(compiled.resources.registers, -1);
  EXPECT_TRUE(std::filesystem::exists(scratch.sub(name) / "candidate.cpp"));
  backend.load(compiled);
  return backend.verify(ctx);
}

// The example campaign's space (share/examples/gemm-host.yaml), constraints included.
GemmGenome random_genome(std::mt19937_64& rng) {
  auto pick = [&](const std::vector<int>& values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
  };
  const std::vector<std::string> orders = {"jpi", "pji", "jip"};
  for (;;) {
    GemmGenome g;
    g.MC = pick({16, 32, 48, 64, 96, 128, 192, 256});
    g.NC = pick({64, 128, 256, 512, 1024});
    g.KC = pick({32, 64, 128, 192, 256, 384, 512});
    g.MR = pick({1, 2, 3, 4, 6, 8});
    g.NR = pick({4, 8, 16, 24, 32});
    g.VEC = pick({1, 4, 8});
    g.UNROLL = pick({1, 2, 4, 8});
    g.PACK = pick({0, 1});
    g.LOOP_ORDER = orders[static_cast<std::size_t>(pick({0, 1, 2}))];
    if (g.NR % g.VEC == 0 && g.MC % g.MR == 0 && g.NC % g.NR == 0 && g.MR * (g.NR / g.VEC) <= 32) return g;
  }
}

std::string describe(const GemmGenome& g) { return g.genome().to_text(); }

TEST(HostGemmBackend, TypicalGenomeCompilesVerifiesAndTimes) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "gemm");
  const jobs::EvalSettings s = testing::small_settings();
  const auto c = testing::gemm_candidate(GemmGenome{}.genome());
  const VerifyResult v = compile_and_verify(*backend, c, s, scratch, "typical");
  EXPECT_EQ(v.status, jobs::Status::ok) << v.evidence;
  EXPECT_GE(v.max_abs_error, 0.0);
  EXPECT_LT(v.max_abs_error, 1e-3);
  EXPECT_LT(v.max_rel_error, 1e-4);

  const TimeResult t = backend->time(testing::context(s, scratch.sub("typical")));
  EXPECT_EQ(t.status, jobs::Status::ok) << t.evidence;
  EXPECT_GE(t.samples_ms.size(), 2u);
  EXPECT_LE(t.samples_ms.size(), 4u);
  for (double ms : t.samples_ms) EXPECT_GT(ms, 0.0);
}

TEST(HostGemmBackend, RandomGenomesOfTheExampleSpaceAllVerifyOnEveryEdgeShape) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "gemm");
  const jobs::EvalSettings s = testing::small_settings(37);  // odd sizes: every tile size meets an edge
  std::mt19937_64 rng(2024);
  std::vector<GemmGenome> genomes;
  for (int n = 0; n < 8; ++n) genomes.push_back(random_genome(rng));
  genomes[0].PACK = 0;  // both code paths, whatever the draw
  genomes[1].PACK = 1;
  for (std::size_t n = 0; n < genomes.size(); ++n) {
    const auto c = testing::gemm_candidate(genomes[n].genome());
    const VerifyResult v = compile_and_verify(*backend, c, s, scratch, "g" + std::to_string(n));
    EXPECT_EQ(v.status, jobs::Status::ok) << describe(genomes[n]) << ": " << v.evidence;
  }
}

TEST(HostGemmBackend, CandidateCompileFlagsReachTheCompiler) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "gemm");
  const jobs::EvalSettings s = testing::small_settings();
  auto c = testing::gemm_candidate({}, "#ifndef KFORGE_FLAG_SEEN\n#error flag missing\n#endif\n");
  c.compile_flags = "-DKFORGE_FLAG_SEEN=1";
  EXPECT_TRUE(backend->compile(c.source, c, testing::context(s, scratch.sub("flags"))).ok);
}

TEST(HostGemmBackend, BaselinesReturnPositiveTimesForEachName) {
  const auto backend = make_backend("host", "gemm");
  const jobs::EvalSettings s = testing::small_settings();
  testing::ScratchDir scratch;
  const auto baselines = backend->time_baselines(testing::context(s, scratch.path()));
  ASSERT_EQ(baselines.size(), 2u);
  EXPECT_EQ(baselines[0].name, "reference");
  EXPECT_EQ(baselines[1].name, "openblas");
  for (const auto& b : baselines) {
    EXPECT_GT(b.time_median_ms, 0.0) << b.name;
    EXPECT_GT(b.time_min_ms, 0.0) << b.name;
    EXPECT_LE(b.time_min_ms, b.time_median_ms) << b.name;
    EXPECT_GE(b.sample_count, 2) << b.name;
    EXPECT_FALSE(b.host.empty());
  }
}

TEST(HostGemmBackend, UnknownBaselineThrowsNamingIt) {
  const auto backend = make_backend("host", "gemm");
  jobs::EvalSettings s = testing::small_settings();
  s.baselines = {"reference", "mkl"};
  testing::ScratchDir scratch;
  try {
    backend->time_baselines(testing::context(s, scratch.path()));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'mkl'"), std::string::npos) << e.what();
  }
}

TEST(HostGemmBackend, VerifyBeforeLoadIsALogicError) {
  const auto backend = make_backend("host", "gemm");
  const jobs::EvalSettings s = testing::small_settings();
  EXPECT_THROW(backend->verify(testing::context(s, "/nonexistent")), std::logic_error);
}

TEST(HostGemmBackend, LoadOfAMissingArtefactThrowsWithTheLoaderMessage) {
  const auto backend = make_backend("host", "gemm");
  CompileResult missing;
  missing.ok = true;
  missing.artefact = "/nonexistent/kforge/candidate.so";
  try {
    backend->load(missing);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/kforge/candidate.so"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kforge::kernels
