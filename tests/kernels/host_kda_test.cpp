// The host kda backend (Kimi Delta Attention forward on the CPU): render -> compile -> load -> verify -> time,
// in-process, on a small problem, and the two failures a broken or cheating candidate must get.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "host_gemm_test_support.hpp"
#include "kda/kda_template.hpp"

namespace kforge::kernels {
namespace {

// Small problem (the verification adds T = 1, 37 and 77, which no CHUNK divides) and a short timing policy.
jobs::EvalSettings small_kda_settings() {
  jobs::EvalSettings s = testing::small_settings();
  s.problem = {{"B", 1}, {"H", 2}, {"T", 64}, {"D", 128}};
  s.baselines = {"reference"};
  return s;
}

jobs::Genome kda_genome(int chunk, int dv_tile, int unroll, int vec) {
  jobs::Genome g;
  g.params = {{"CHUNK", std::int64_t{chunk}},
              {"DV_TILE", std::int64_t{dv_tile}},
              {"UNROLL", std::int64_t{unroll}},
              {"VEC", std::int64_t{vec}}};
  return g;
}

jobs::Genome default_genome() { return kda_genome(32, 64, 2, 8); }  // a typical genome of the example space

jobs::Candidate kda_candidate(const jobs::Genome& genome, std::string source = {}) {
  jobs::Candidate c = testing::gemm_candidate(genome, std::move(source));
  c.family = "kda";
  return c;
}

VerifyResult compile_and_verify(Backend& backend, const jobs::Candidate& c, const jobs::EvalSettings& s,
                                const testing::ScratchDir& scratch, const std::string& name) {
  const EvalContext ctx = testing::context(s, scratch.sub(name));
  const CompileResult compiled = backend.compile(backend.render(c), c, ctx);
  EXPECT_TRUE(compiled.ok) << name << ":\n" << compiled.log;
  if (!compiled.ok) return {};
  backend.load(compiled);
  return backend.verify(ctx);
}

// The default genome's source with one piece replaced; fails the test when the piece is not there.
std::string edited_default_source(const std::string& piece, const std::string& replacement) {
  std::string source = host::render_kda_source(host::kda_params_from_genome(default_genome()));
  const auto at = source.find(piece);
  EXPECT_NE(at, std::string::npos) << "the template no longer contains: " << piece;
  if (at != std::string::npos) source.replace(at, piece.size(), replacement);
  return source;
}

TEST(HostKdaBackend, DefaultGenomeCompilesVerifiesAndTimesAgainstTheReference) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "kda");
  EXPECT_EQ(backend->name(), "host");
  EXPECT_EQ(backend->family(), "kda");
  const jobs::EvalSettings s = small_kda_settings();
  const VerifyResult v = compile_and_verify(*backend, kda_candidate(default_genome()), s, scratch, "default");
  EXPECT_EQ(v.status, jobs::Status::ok) << v.evidence;
  EXPECT_GE(v.max_abs_error, 0.0);
  EXPECT_LT(v.max_rel_error, 1e-4);

  const TimeResult t = backend->time(testing::context(s, scratch.sub("default")));
  EXPECT_EQ(t.status, jobs::Status::ok) << t.evidence;
  EXPECT_GE(t.samples_ms.size(), 2u);
  for (double ms : t.samples_ms) EXPECT_GT(ms, 0.0);
  const auto baselines = backend->time_baselines(testing::context(s, scratch.sub("default")));
  ASSERT_EQ(baselines.size(), 1u);
  EXPECT_EQ(baselines[0].name, "reference");
  EXPECT_GT(baselines[0].time_median_ms, 0.0);
}

TEST(HostKdaBackend, RandomGenomesVerifyIncludingTokenCountsNoChunkDivides) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "kda");
  const jobs::EvalSettings s = small_kda_settings();
  std::mt19937_64 rng(7);
  auto pick = [&](const std::vector<int>& values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
  };
  for (int n = 0; n < 3; ++n) {
    // DV_TILE 48 and 24 do not divide D = 128: the last value tile is partial.
    const jobs::Genome g =
        kda_genome(pick({16, 32, 64}), pick({16, 24, 48, 64, 128}), pick({1, 2, 4}), pick({1, 4, 8}));
    const VerifyResult v = compile_and_verify(*backend, kda_candidate(g), s, scratch, "random" + std::to_string(n));
    EXPECT_EQ(v.status, jobs::Status::ok) << g.to_text() << ": " << v.evidence;
  }
}

TEST(HostKdaBackend, CandidateThatSkipsTheStateDecayIsAWrongResult) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "kda");
  const std::string buggy = edited_default_source("for (int col = 0; col < dv; ++col) Sc[col] *= d;", "(void)d;");
  const VerifyResult v =
      compile_and_verify(*backend, kda_candidate(default_genome(), buggy), small_kda_settings(), scratch, "buggy");
  EXPECT_EQ(v.status, jobs::Status::wrong_result);
  EXPECT_NE(v.evidence.find("wrong result"), std::string::npos) << v.evidence;
}

TEST(HostKdaBackend, CandidateThatWritesIntoQIsACheat) {
  testing::ScratchDir scratch;
  const auto backend = make_backend("host", "kda");
  const std::string cheat =
      edited_default_source("  Work w(D);\n", "  Work w(D);\n  const_cast<float*>(q)[0] += 1.f;\n");
  const VerifyResult v =
      compile_and_verify(*backend, kda_candidate(default_genome(), cheat), small_kda_settings(), scratch, "cheat");
  EXPECT_EQ(v.status, jobs::Status::cheat_detected);
  EXPECT_NE(v.evidence.find("input q modified"), std::string::npos) << v.evidence;
}

TEST(HostKdaBackend, GenomeWithAMissingOrBadParameterIsRejectedByName) {
  const auto backend = make_backend("host", "kda");
  jobs::Genome missing = default_genome();
  missing.params.erase("DV_TILE");
  try {
    backend->render(kda_candidate(missing));
    FAIL() << "a genome without DV_TILE rendered";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("DV_TILE"), std::string::npos) << e.what();
  }
  EXPECT_THROW(backend->render(kda_candidate(kda_genome(48, 64, 2, 8))), std::invalid_argument);  // CHUNK 48
}

}  // namespace
}  // namespace kforge::kernels
