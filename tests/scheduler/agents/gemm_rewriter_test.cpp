// share/agents/gemm_rewriter.py on really rendered host gemm sources: its children compile and differ.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "kforge/jobs/text_file.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/scheduler/agents/agent_runner.hpp"

namespace kforge::scheduler {
namespace {

jobs::Genome gemm_genome(int pack, const std::string& order) {
  jobs::Genome g;
  g.params = {{"MC", std::int64_t{64}},    {"NC", std::int64_t{256}},    {"KC", std::int64_t{128}},
              {"MR", std::int64_t{4}},     {"NR", std::int64_t{16}},     {"VEC", std::int64_t{8}},
              {"UNROLL", std::int64_t{4}}, {"PACK", std::int64_t{pack}}, {"LOOP_ORDER", order}};
  return g;
}

SpaceSpec gemm_space() {
  SpaceSpec space;
  auto ints = [](std::initializer_list<std::int64_t> values) {
    std::vector<jobs::ParamValue> out;
    for (auto v : values) out.emplace_back(v);
    return out;
  };
  space.parameters = {{"MC", ints({32, 64}), {}},
                      {"NC", ints({256}), {}},
                      {"KC", ints({128}), {}},
                      {"MR", ints({4}), {}},
                      {"NR", ints({16}), {}},
                      {"VEC", ints({1, 8}), {}},
                      {"UNROLL", ints({4}), {}},
                      {"PACK", ints({0, 1}), {}},
                      {"LOOP_ORDER", {std::string("jpi"), std::string("pji")}, {}}};
  space.constraints = {{"NR % VEC == 0", {}}};
  return space;
}

BriefParent rendered_parent(const kernels::Backend& backend, int pack, const std::string& order) {
  BriefParent parent;
  parent.candidate.family = "gemm";
  parent.candidate.backend = "host";
  parent.candidate.genome = gemm_genome(pack, order);
  jobs::assign_id(parent.candidate);
  parent.candidate.source = backend.render(parent.candidate);  // what the runner puts in the brief
  parent.record.status = jobs::Status::ok;
  parent.record.time_median_ms = 2.0;
  parent.record.speedup = 4.0;
  return parent;
}

// c++ -O2 -shared -fPIC on the source; the compiler's output goes to a log beside it.
int compile(const std::filesystem::path& dir, const std::string& name, const std::string& source) {
  jobs::write_text_file_atomically(dir / (name + ".cpp"), source);
  const std::string command = "c++ -std=c++17 -O2 -shared -fPIC -Werror=return-type -o '" +
                              (dir / (name + ".so")).string() + "' '" + (dir / (name + ".cpp")).string() + "' > '" +
                              (dir / (name + ".log")).string() + "' 2>&1";
  return std::system(command.c_str());
}

// Loads the compiled child and compares it with a naive triple loop on a shape with edge tiles in every
// dimension; returns the largest relative error (or +inf when it cannot be loaded).
double max_rel_error(const std::filesystem::path& so) {
  void* lib = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return INFINITY;
  using Gemm = void (*)(int, int, int, const float*, int, const float*, int, float*, int);
  const auto gemm = reinterpret_cast<Gemm>(::dlsym(lib, "kforge_gemm"));
  const int M = 71, N = 45, K = 300;  // not multiples of MR, NR, UNROLL or KC
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
  std::vector<float> a(M * K), b(K * N), c(M * N, NAN);
  for (auto& x : a) x = uniform(rng);
  for (auto& x : b) x = uniform(rng);
  double worst = gemm == nullptr ? INFINITY : 0.0;
  if (gemm != nullptr) gemm(M, N, K, a.data(), K, b.data(), N, c.data(), N);
  for (int i = 0; i < M && gemm != nullptr; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0.0;
      for (int k = 0; k < K; ++k) want += double(a[i * K + k]) * b[k * N + j];
      const double err = std::fabs(c[i * N + j] - want) / std::max(1.0, std::fabs(want));
      worst = std::isnan(err) ? INFINITY : std::max(worst, err);
    }
  ::dlclose(lib);
  return worst;
}

TEST(GemmRewriterAgent, ChildrenAreDistinctCompilingSourceEditsOfTheirParents) {
  const auto backend = kernels::make_backend("host", "gemm");
  const SearchSpace space(gemm_space());
  AgentBrief brief;
  brief.campaign = "rewriter-test";
  brief.family = "gemm";
  brief.backend = "host";
  brief.target = "host";
  brief.generation = 1;
  brief.children_wanted = 11;  // every edit that applies: 6 to the direct, 5 to the packed source
  brief.parents = {rendered_parent(*backend, 0, "jpi"), rendered_parent(*backend, 1, "pji")};
  brief.space = gemm_space();
  const auto dir = std::filesystem::path(KFORGE_BINARY_DIR) / "agents-test" / "gemm-rewriter";
  std::filesystem::remove_all(dir);
  const AgentSpec spec{
      "gemm_rewriter", {"/usr/bin/python3", KFORGE_SOURCE_DIR "/share/agents/gemm_rewriter.py"}, 60.0, dir, {}};

  const auto outcome = run_agent(spec, brief, space);
  ASSERT_EQ(outcome.status, AgentStatus::ok) << outcome.evidence;
  EXPECT_TRUE(outcome.rejected.empty()) << outcome.evidence;
  ASSERT_EQ(outcome.children.size(), 11U) << outcome.evidence;

  const auto candidates = agent_candidates(outcome.children, brief, spec.name, {"gemm", "host", ""});
  ASSERT_EQ(candidates.size(), 11U);  // all distinct
  std::set<std::string> parent_ids = {brief.parents[0].candidate.id, brief.parents[1].candidate.id};
  int index = 0;
  for (const auto& child : candidates) {
    SCOPED_TRACE(outcome.children[index].rationale);
    ASSERT_EQ(child.parents.size(), 1U);
    ASSERT_TRUE(parent_ids.count(child.parents[0]));
    const auto& parent = child.parents[0] == brief.parents[0].candidate.id ? brief.parents[0] : brief.parents[1];
    EXPECT_EQ(child.genome, parent.candidate.genome);
    EXPECT_NE(child.source, parent.candidate.source);
    EXPECT_NE(child.id, parent.candidate.id);
    EXPECT_NE(child.source.find("extern \"C\" void kforge_gemm(int M, int N, int K, const float* A, int lda"),
              std::string::npos);
    const std::string name = "child" + std::to_string(index++);
    ASSERT_EQ(compile(dir, name, child.source), 0) << jobs::read_text_file(dir / (name + ".log"));
    EXPECT_LT(max_rel_error(dir / (name + ".so")), 1e-4);  // still computes C = A * B
  }
}

TEST(GemmRewriterAgent, SameBriefGivesTheSameChildren) {
  const auto backend = kernels::make_backend("host", "gemm");
  const SearchSpace space(gemm_space());
  AgentBrief brief;
  brief.family = "gemm";
  brief.backend = "host";
  brief.children_wanted = 3;
  brief.parents = {rendered_parent(*backend, 1, "jpi")};
  brief.space = gemm_space();
  const auto base = std::filesystem::path(KFORGE_BINARY_DIR) / "agents-test" / "gemm-rewriter-determinism";
  std::vector<std::string> sources[2];
  for (int run = 0; run < 2; ++run) {
    const AgentSpec spec{"gemm_rewriter",
                         {"/usr/bin/python3", KFORGE_SOURCE_DIR "/share/agents/gemm_rewriter.py"},
                         60.0,
                         base / std::to_string(run),
                         {}};
    const auto outcome = run_agent(spec, brief, space);
    ASSERT_EQ(outcome.status, AgentStatus::ok) << outcome.evidence;
    for (const auto& child : outcome.children) sources[run].push_back(child.source);
  }
  EXPECT_EQ(sources[0].size(), 3U);
  EXPECT_EQ(sources[0], sources[1]);
}

TEST(GemmRewriterAgent, OtherFamiliesGetNoChildrenButAValidFile) {
  AgentBrief brief;
  brief.family = "rmsnorm";
  brief.backend = "cuda";
  brief.children_wanted = 2;
  const SearchSpace space(gemm_space());
  const AgentSpec spec{"gemm_rewriter",
                       {"/usr/bin/python3", KFORGE_SOURCE_DIR "/share/agents/gemm_rewriter.py"},
                       60.0,
                       std::filesystem::path(KFORGE_BINARY_DIR) / "agents-test" / "gemm-rewriter-other",
                       {}};
  const auto outcome = run_agent(spec, brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::ok) << outcome.evidence;
  EXPECT_TRUE(outcome.children.empty());
}

}  // namespace
}  // namespace kforge::scheduler
