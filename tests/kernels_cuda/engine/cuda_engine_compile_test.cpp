// The cuda engine's compile stage without a GPU: NVRTC compiles the module for sm_90a and sm_100a with every value
// of every parameter, ptxas's figures of all nine kernels (and of the optional ones the genome uses) reach the log and
// the record, and what cannot run is refused before any GPU time with the kernel named: a genome outside the space,
// a module missing a kernel, a kernel whose registers spill, a malformed module.
#include <gtest/gtest.h>

#include "cuda_engine_source.hpp"
#include "cuda_engine_test_support.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using testing::ScratchDir;

CompileResult compile(CudaEngineBackend& b, const jobs::Candidate& c, const jobs::EvalSettings& s,
                      const ScratchDir& scratch, const std::string& target) {
  return b.compile(b.render(c), c, testing::context(s, scratch, target));
}

TEST(CudaEngineCompile, TheDefaultModuleCompilesForBothArchitecturesWithEveryKernelsFigures) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    for (const char* target : {"hopper", "blackwell"}) {
      ScratchDir scratch;
      CudaEngineBackend b = testing::gpu_backend(scratch);
      const jobs::EvalSettings s = testing::settings(arch);
      const CompileResult r = compile(b, testing::candidate(testing::genome_with({})), s, scratch, target);
      ASSERT_TRUE(r.ok) << arch << " " << target << "\n" << r.log;
      const std::string sm = std::string(target) == "hopper" ? "sm_90a" : "sm_100a";
      for (std::string_view k : kEngineKernels)
        EXPECT_NE(r.log.find("[kforge] " + sm + " " + std::string(k) + ":"), std::string::npos) << k << "\n" << r.log;
      EXPECT_GT(r.resources.registers, 0);
      EXPECT_GT(r.resources.shared_bytes, 0);  // kf_gemm's tiles
      EXPECT_EQ(r.resources.spill_bytes, 0);
      EXPECT_NE(r.ptx.find(".entry kf_gemm"), std::string::npos);
      EXPECT_TRUE(std::filesystem::exists(r.artefact));
    }
  }
}

TEST(CudaEngineCompile, EveryValueOfEveryParameterCompiles) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("kimi-linear");
  int compiled = 0;
  for (const auto& [name, values] : cuda_engine_space()) {
    for (std::int64_t v : values) {
      jobs::Genome g = testing::genome_with({{name.c_str(), v}});
      if (cuda_engine_invalid_reason(g)) continue;  // a tile outside [32, 1024] threads: refused, tested below
      const CompileResult r = compile(b, testing::candidate(g), s, scratch, "hopper");
      EXPECT_TRUE(r.ok) << name << "=" << v << "\n" << r.log;
      ++compiled;
    }
  }
  EXPECT_GT(compiled, 40);
}

// The string parameters: every weight precision under both activation contracts, with every optional kernel
// launched, compiles on both targets (a spill would be a resource_reject; GEMV_NORM and GEMV_SILU left out: a few
// of their kf_gemv builds spill, docs/engines.md).
TEST(CudaEngineCompile, EveryPrecisionAndContractCompilesForBothTargetsWithEveryOptionalKernel) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("kimi-linear");
  for (const char* weights : {"fp32", "bf16", "int8", "fp8"})
    for (const char* activations : {"fp32", "bf16"}) {
      jobs::Genome g = testing::genome_with(
          {{"GEMV_ROWS", 8}, {"ATTN_GROUP", 1}, {"ATTN_QTILE", 1}, {"GEMM_TC", 1}, {"kv_block", 16}});
      g.params["weights"] = std::string(weights);
      g.params["activations"] = std::string(activations);
      for (const char* target : {"hopper", "blackwell"}) {
        const CompileResult r = compile(b, testing::candidate(g), s, scratch, target);
        EXPECT_TRUE(r.ok) << weights << " " << activations << " " << target << "\n" << r.log;
      }
    }
}

// render() throws (the cascade records compile_error "could not render the source"); compile() of any source with
// such a genome refuses it too, before NVRTC.
TEST(CudaEngineCompile, AGenomeOutsideTheSpaceIsACompileErrorNamingIt) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("llama");
  const EvalContext ctx = testing::context(s, scratch, "hopper");
  const std::string source = b.render(testing::candidate(testing::genome_with({})));
  const jobs::Candidate tiny = testing::candidate(testing::genome_with({{"BM", 16}, {"BN", 32}, {"TM", 8}, {"TN", 8}}));
  try {
    b.render(tiny);
    ADD_FAILURE() << "rendered a genome with 8 GEMM threads";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("(BM / TM) * (BN / TN)"), std::string::npos) << e.what();
  }
  const CompileResult r = b.compile(source, tiny, ctx);
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("8 threads per block"), std::string::npos) << r.log;
  jobs::Genome unknown = testing::genome_with({});
  unknown.params["MC"] = std::int64_t{64};  // a host engine parameter
  const CompileResult u = b.compile(source, testing::candidate(unknown), ctx);
  EXPECT_EQ(u.status, jobs::Status::compile_error);
  EXPECT_NE(u.log.find("unknown parameter(s) MC"), std::string::npos) << u.log;
}

TEST(CudaEngineCompile, AModuleWithoutAKernelIsACompileErrorNamingTheKernel) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("llama");
  const jobs::Genome g = testing::genome_with({});
  std::string source = render_cuda_engine_source(cuda_engine_params(g));
  const auto at = source.find("kf_silu_mul(");
  ASSERT_NE(at, std::string::npos);
  source.replace(at, 11, "kf_silu_mix");
  const CompileResult r = compile(b, testing::candidate(g, source), s, scratch, "hopper");
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("no figures for the kernel kf_silu_mul"), std::string::npos) << r.log;
}

// kf_gemv and kf_attention_group are the genome's to use: a module without them (an agent's, written for the nine
// kernels) is complete while the genome does not launch them, and a compile_error naming the missing one once it
// does; then that kernel's figures are in the log.
TEST(CudaEngineCompile, AnOptionalKernelIsRequiredExactlyWhenTheGenomeLaunchesIt) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("llama");
  for (const auto& [gene, kernel] : {std::pair{"GEMV_ROWS", "kf_gemv"},
                                     {"ATTN_GROUP", "kf_attention_group"},
                                     {"ATTN_QTILE", "kf_attention_tiles"},
                                     {"GEMM_TC", "kf_gemm_tc"}}) {
    for (const std::int64_t value : {0, 1}) {
      jobs::Genome g = testing::genome_with({{gene, value}});
      g.params["weights"] = std::string("bf16");  // kf_gemm_tc's
      const std::string rendered = render_cuda_engine_source(cuda_engine_params(g));
      std::string without = rendered;
      const std::string name = std::string(kernel) + "(";
      without.replace(without.find(name), name.size(), std::string(kernel) + "_gone(");
      const CompileResult r = compile(b, testing::candidate(g, without), s, scratch, "hopper");
      if (value == 0) {
        EXPECT_TRUE(r.ok) << kernel << "\n" << r.log;
        continue;
      }
      EXPECT_EQ(r.status, jobs::Status::compile_error) << kernel;
      EXPECT_NE(r.log.find("no figures for the kernel " + std::string(kernel)), std::string::npos) << r.log;
      const CompileResult with = compile(b, testing::candidate(g, rendered), s, scratch, "blackwell");
      ASSERT_TRUE(with.ok) << with.log;
      EXPECT_NE(with.log.find("[kforge] sm_100a " + std::string(kernel) + ":"), std::string::npos) << with.log;
    }
  }
}

TEST(CudaEngineCompile, AMalformedModuleIsACompileErrorQuotingNvrtc) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("llama");
  const CompileResult r =
      compile(b, testing::candidate(testing::genome_with({}), "extern \"C\" __global__ void kf_embed( {"), s, scratch,
              "hopper");
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
}

// KDA with each thread's state column in registers: at head_dim 128 the column (128 floats) does not fit beside the
// rest, ptxas spills, and the candidate is refused with the kernel and the spill named, before any GPU time.
TEST(CudaEngineCompile, KdaStateInRegistersThatSpillsIsAResourceRejectNamingTheKernel) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  jobs::EvalSettings s = testing::settings("kimi-linear");
  s.engine.model.heads = 2;
  s.engine.model.kv_heads = 2;
  s.engine.model.head_dim = 128;
  const CompileResult r =
      compile(b, testing::candidate(testing::genome_with({{"kda_state_regs", 1}})), s, scratch, "hopper");
  EXPECT_EQ(r.status, jobs::Status::resource_reject) << r.log;
  EXPECT_NE(r.log.find("kf_kda: "), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("spill"), std::string::npos) << r.log;
  EXPECT_GT(r.resources.spill_bytes, 0);
  // The same model with the state in global memory compiles.
  EXPECT_TRUE(compile(b, testing::candidate(testing::genome_with({})), s, scratch, "hopper").ok);
}

TEST(CudaEngineCompile, TheHarnessDefinesTheModelsLayoutsOnTheCommandLine) {
  jobs::ModelSpec m = testing::settings("llama").engine.model;
  CudaEngineParams p;
  p.prepack = true;
  p.kv_block = 32;
  EXPECT_EQ(CudaEngineBackend::layout_defines(m, p),
            (std::vector<std::string>{"-DKF_HEAD_DIM=16", "-DKF_PREPACK=1", "-DKF_KV_BLOCK=32"}));
  // Without them a module refuses to compile rather than guess a layout.
  const std::string source = render_cuda_engine_source(p);
  EXPECT_NE(source.find("#error \"the harness defines KF_HEAD_DIM"), std::string::npos);
}

TEST(CudaEngineCompile, ARecompileOfTheSameCandidateIsACacheHit) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("llama");
  const jobs::Candidate c = testing::candidate(testing::genome_with({}));
  ASSERT_TRUE(compile(b, c, s, scratch, "hopper").ok);
  const CompileResult again = compile(b, c, s, scratch, "hopper");
  EXPECT_TRUE(again.ok);
  EXPECT_NE(again.log.find("compile cache hit"), std::string::npos);
  // Another model (head_dim) is another module: the defines are part of the cache key.
  jobs::EvalSettings wider = s;
  wider.engine.model.head_dim = 32;
  const CompileResult other = compile(b, c, wider, scratch, "hopper");
  EXPECT_TRUE(other.ok) << other.log;
  EXPECT_EQ(other.log.find("compile cache hit"), std::string::npos);
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
