// NVRTC compiles every family for sm_90a and sm_100a with no GPU, records ptxas's figures, and caches.
#include <fstream>

#include "cuda_test_support.hpp"

namespace kforge::kernels::cuda::test {
namespace {

void expect_compiled_with_figures(const CompileResult& r, const std::string& what) {
  EXPECT_TRUE(r.ok) << what << "\n" << r.log;
  EXPECT_EQ(r.status, jobs::Status::ok) << what;
  EXPECT_GT(r.resources.registers, 0) << what;
  EXPECT_GE(r.resources.shared_bytes, 0) << what;
  EXPECT_EQ(r.resources.spill_bytes, 0) << what;
  EXPECT_GT(r.compile_ms, 0.0) << what;
  EXPECT_NE(r.log.find("Used "), std::string::npos) << what << ": ptxas's report is kept as evidence";
  EXPECT_GT(std::filesystem::file_size(r.artefact), 1000u) << what;
  std::ifstream cubin(r.artefact, std::ios::binary);
  char magic[4] = {};
  cubin.read(magic, 4);
  EXPECT_EQ(std::string(magic, 4),
            "\x7f"
            "ELF")
      << what << ": the artefact is a cubin (ELF)";
}

class DefaultCandidate : public CudaBackendTest,
                         public ::testing::WithParamInterface<std::tuple<std::string, std::string>> {};

TEST_P(DefaultCandidate, CompilesWithResourceFigures) {
  const auto& [family, target] = GetParam();
  auto b = backend(family);
  const jobs::Candidate c = candidate(b->cuda_family(), b->cuda_family().default_genome());
  const CompileResult r = compile(*b, c, target);
  expect_compiled_with_figures(r, family + " on " + target);
  EXPECT_NE(r.log.find(arch_for_target(target).arch), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(EveryFamilyAndTarget, DefaultCandidate,
                         ::testing::Combine(::testing::Values("gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"),
                                            ::testing::Values("hopper", "blackwell")),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_" + std::get<1>(param_info.param);
                         });

// Five random genomes per family, each compiled for both architectures.
class RandomCandidates : public CudaBackendTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(RandomCandidates, CompileForBothArchitecturesWithFigures) {
  auto b = backend(GetParam(), /*max_spill_bytes=*/1 << 20);  // figures are the point here, not the verdict
  std::mt19937_64 rng(2024);
  for (int n = 0; n < 5; ++n) {
    const jobs::Candidate c = candidate(b->cuda_family(), random_genome(b->cuda_family(), rng));
    for (const char* target : {"hopper", "blackwell"}) {
      const CompileResult r = compile(*b, c, target);
      EXPECT_TRUE(r.ok) << c.genome.to_text() << " on " << target << "\n" << r.log;
      EXPECT_GT(r.resources.registers, 0) << c.genome.to_text() << " on " << target;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, RandomCandidates,
                         ::testing::Values("gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"));

TEST_F(CudaBackendTest, SecondCompileOfTheSameCandidateIsACacheHit) {
  auto b = backend("rmsnorm");
  const jobs::Candidate c = candidate(b->cuda_family(), b->cuda_family().default_genome());
  const CompileResult first = compile(*b, c, "hopper");
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(b->last_compile_was_cache_hit());
  const CompileResult second = compile(*b, c, "hopper");
  EXPECT_TRUE(b->last_compile_was_cache_hit());
  EXPECT_TRUE(second.ok);
  EXPECT_EQ(second.artefact, first.artefact);
  EXPECT_EQ(second.resources.registers, first.resources.registers);
  EXPECT_NE(second.log.find("compile cache hit"), std::string::npos);
  compile(*b, c, "blackwell");  // same id, other arch: its own entry
  EXPECT_FALSE(b->last_compile_was_cache_hit());
}

TEST_F(CudaBackendTest, ChangedSourceUnderTheSameIdIsACacheMiss) {
  auto b = backend("rmsnorm");
  jobs::Candidate c = candidate(b->cuda_family(), b->cuda_family().default_genome());
  const std::string source = b->render(c);
  ASSERT_TRUE(b->compile(source, c, context("hopper")).ok);
  ASSERT_TRUE(b->compile(source + "\n// changed template\n", c, context("hopper")).ok);
  EXPECT_FALSE(b->last_compile_was_cache_hit());
}

TEST_F(CudaBackendTest, HostCompilerFlagsFromTheCampaignDefaultsAreDroppedAndNamed) {
  settings_.compile_flags = "-O3 -march=native";
  auto b = backend("rmsnorm");
  const CompileResult r = compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome()), "blackwell");
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.log.find("ignored host-compiler flags: -O3 -march=native"), std::string::npos) << r.log;
}

TEST_F(CudaBackendTest, UnknownTargetIsAnErrorNamingTheKnownOnes) {
  auto b = backend("rmsnorm");
  const jobs::Candidate c = candidate(b->cuda_family(), b->cuda_family().default_genome());
  EXPECT_THROW(compile(*b, c, "ampere"), std::invalid_argument);
  EXPECT_THROW(compile(*b, c, ""), std::invalid_argument);
}

TEST_F(CudaBackendTest, LoadWithoutAGpuThrowsNoCudaDevice) {
  if (why_no_cuda_device().empty()) GTEST_SKIP() << "a GPU is present: this test is for machines without one";
  auto b = backend("rmsnorm");
  const CompileResult r = compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome()), "hopper");
  ASSERT_TRUE(r.ok) << r.log;
  try {
    b->load(r);
    FAIL() << "load() must throw without a device";
  } catch (const NoCudaDevice& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos);
  }
}

}  // namespace
}  // namespace kforge::kernels::cuda::test
