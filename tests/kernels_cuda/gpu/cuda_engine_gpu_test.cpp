// The cuda engine on a GPU (label gpu; each test skips with the reason without a usable sm_90 / sm_100 device):
// the module loaded in a fresh context, the launch plan serving the verification traces and the workload, the
// serving figures, both baselines (the double reference on the CPU, the cuBLAS engine on the GPU), and the same
// hostile modules the CPU emulation catches (../engine/cuda_engine_hostile_modules.hpp).
#include <gtest/gtest.h>

#include <map>

#include "cuda_engine_hostile_modules.hpp"
#include "driver_api.hpp"
#include "gpu_test_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

namespace t = testing;

std::string gpu_target_or_skip_reason(std::string& why) {
  why = why_no_cuda_device();
  if (!why.empty()) return "";
  const std::string target = cuda::test::target_of_this_gpu();
  if (target.empty()) why = "the GPU is neither sm_90 nor sm_100";
  return target;
}

class CudaEngineGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    target_ = gpu_target_or_skip_reason(why);
    if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  }
  std::string target_;
};

// most_error: the largest error verification may find (fp32 arithmetic: far inside 1e-4).
void expect_verifies_serves_and_has_baselines(const std::string& architecture, const jobs::Genome& g,
                                              const std::string& target, double most_error = 1e-5) {
  SCOPED_TRACE(architecture + " " + g.to_text());
  t::ScratchDir scratch;
  CudaEngineBackend b = t::gpu_backend(scratch);
  jobs::EvalSettings s = t::settings(architecture);
  s.baselines = {"reference", "cublas", "cublas_bf16"};
  const EvalContext ctx = t::context(s, scratch, target);
  const jobs::Candidate c = t::candidate(g);
  const CompileResult compiled = b.compile(b.render(c), c, ctx);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  b.load(compiled);
  const VerifyResult v = b.verify(ctx);
  ASSERT_EQ(v.status, jobs::Status::ok) << v.evidence << " " << v.failed_case;
  EXPECT_LT(v.max_rel_error, most_error);
  const TimeResult timed = b.time(ctx);
  ASSERT_EQ(timed.status, jobs::Status::ok) << timed.evidence;
  std::map<std::string, double> m;
  for (const auto& x : timed.metrics) m[x.name] = x.value;
  EXPECT_GT(m.at("output_tokens_per_s"), 0.0);
  EXPECT_GT(m.at("peak_memory_mb"), 0.0);
  const auto baselines = b.time_baselines(ctx);
  ASSERT_EQ(baselines.size(), 3u);
  for (const auto& base : baselines) EXPECT_GT(base.time_median_ms, 0.0) << base.name;
  std::printf("[ figures  ] %s %s: %.1f tokens/s, %.4f ms/token (reference %.4f, cublas %.4f, cublas_bf16 %.4f)\n",
              architecture.c_str(), target.c_str(), m.at("output_tokens_per_s"), timed.samples_ms.front(),
              baselines[0].time_median_ms, baselines[1].time_median_ms, baselines[2].time_median_ms);
}

TEST_F(CudaEngineGpu, TheDefaultEngineVerifiesServesAndHasBothBaselines) {
  expect_verifies_serves_and_has_baselines("llama", t::genome_with({}), target_);
  expect_verifies_serves_and_has_baselines("kimi-linear", t::genome_with({}), target_);
}

TEST_F(CudaEngineGpu, EveryLaunchPlanChoiceAndKernelVariantVerifies) {
  const jobs::Genome other = t::genome_with({{"fuse_qkv", 0},
                                             {"fuse_gate_up", 0},
                                             {"fold_norm", 1},
                                             {"residual_epilogue", 0},
                                             {"prepack", 1},
                                             {"SPLIT_K", 4},
                                             {"kv_block", 16},
                                             {"BM", 16},
                                             {"BN", 32},
                                             {"TM", 1},
                                             {"TN", 2},
                                             {"ATTN_THREADS", 32},
                                             {"ATTN_TILE", 32},
                                             {"kda_state_regs", 1}});
  expect_verifies_serves_and_has_baselines("llama", other, target_);
  expect_verifies_serves_and_has_baselines("kimi-linear", other, target_);
}

TEST_F(CudaEngineGpu, Bf16AndInt8WeightsGemvAndGroupedAttentionVerifyAndServe) {
  jobs::Genome g = t::genome_with({});
  g.params["weights"] = std::string("bf16");
  expect_verifies_serves_and_has_baselines("llama", g, target_);
  g.params["prepack"] = std::int64_t{1};
  expect_verifies_serves_and_has_baselines("kimi-linear", g, target_);
  g.params["prepack"] = std::int64_t{0};
  g.params["GEMV_ROWS"] = std::int64_t{8};
  g.params["ATTN_GROUP"] = std::int64_t{1};
  expect_verifies_serves_and_has_baselines("llama", g, target_);
  g.params["weights"] = std::string("int8");
  expect_verifies_serves_and_has_baselines("kimi-linear", g, target_);
  g.params["weights"] = std::string("fp8");
  expect_verifies_serves_and_has_baselines("llama", g, target_);
}

// decode_graphs on the driver: stream capture, event record nodes as marks, replays with the step's tables in device
// memory (the emulation checks the semantics; only a GPU checks the driver calls).
TEST_F(CudaEngineGpu, DecodeStepsAsGraphsVerifyAndServe) {
  jobs::Genome g = t::genome_with({{"decode_graphs", 1}, {"GEMV_ROWS", 8}, {"kv_block", 16}});
  expect_verifies_serves_and_has_baselines("llama", g, target_);
  g.params["weights"] = std::string("bf16");
  g.params["ATTN_GROUP"] = std::int64_t{1};
  expect_verifies_serves_and_has_baselines("kimi-linear", g, target_);
}

// The kernels on tensor cores on the hardware whose fragments the emulation only reads from the PTX ISA: kf_gemm_tc
// (three bf16 parts per activation: the fp32 engine's result), then under the activation contract kf_gemm_tc with
// one part, kf_attention_tiles' mma products and the bf16 KV cache; with kf_gemv serving decode steps (with
// GEMV_SILU its bf16 build spills on sm_100a: a resource_reject, docs/engines.md).
TEST_F(CudaEngineGpu, TensorCoresAndTheActivationContractVerifyAndServe) {
  jobs::Genome g =
      t::genome_with({{"GEMM_TC", 1}, {"ATTN_QTILE", 1}, {"GEMV_ROWS", 8}, {"ATTN_GROUP", 1}, {"kv_block", 16}});
  g.params["weights"] = std::string("bf16");
  expect_verifies_serves_and_has_baselines("llama", g, target_);
  g.params["activations"] = std::string("bf16");  // kimi-linear: its attention layers and KDA's projections
  expect_verifies_serves_and_has_baselines("kimi-linear", g, target_,
                                           kernels::engine::kLogitRelToleranceBf16Activations / 3);
}

class CudaEngineGpuCheats : public ::testing::TestWithParam<t::HostileModule> {};

TEST_P(CudaEngineGpuCheats, IsCaught) {
  std::string why;
  const std::string target = gpu_target_or_skip_reason(why);
  if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  t::ScratchDir scratch;
  CudaEngineBackend backend = t::gpu_backend(scratch);
  t::expect_caught(backend, GetParam(), scratch, target);
}

INSTANTIATE_TEST_SUITE_P(OnTheGpu, CudaEngineGpuCheats, ::testing::ValuesIn(t::hostile_modules()),
                         [](const ::testing::TestParamInfo<t::HostileModule>& p) { return p.param.name; });

}  // namespace
}  // namespace kforge::kernels::cuda::engine
