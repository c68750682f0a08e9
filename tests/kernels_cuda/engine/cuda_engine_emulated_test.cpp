// The cuda engine end to end on the CPU emulation of its module (a FAKE GPU, tests/kernels_cuda/emulator/): the
// launch plan and the kernels NVRTC compiles for sm_90a, run as host C++, must reproduce the double reference
// engine's logits at every step of the verification trace for every code path the genome chooses (fusions, folded
// norms, residual epilogue, prepacked weights, split-K, paged KV cache, KDA state in registers), on both
// architectures, and serve the workload with its figures. What this cannot show: speed, and the driver calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "cuda_engine_source.hpp"
#include "emulated_backend.hpp"
#include "kforge/engine/engine_abi.hpp"
#include "kforge/engine/engine_verification.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using testing::expect_correct;
using testing::ScratchDir;
using testing::Served;
using testing::verified_with_edit;
using testing::verify_and_time;

TEST(CudaEngineEmulated, TheDefaultEngineReproducesTheReferenceOnBothArchitectures) {
  expect_correct(testing::settings("llama"), testing::genome_with({}));
  expect_correct(testing::settings("kimi-linear"), testing::genome_with({}));
}

TEST(CudaEngineEmulated, EveryLaunchPlanChoiceComputesTheSameModel) {
  // Every fusion off, norms folded, residuals through kf_add, prepacked weights, split-K atomics, paged KV cache.
  const jobs::Genome other = testing::genome_with({{"fuse_qkv", 0},
                                                   {"fuse_gate_up", 0},
                                                   {"fold_norm", 1},
                                                   {"residual_epilogue", 0},
                                                   {"prepack", 1},
                                                   {"SPLIT_K", 4},
                                                   {"kv_block", 16}});
  expect_correct(testing::settings("llama"), other);
  expect_correct(testing::settings("kimi-linear"), other);
}

TEST(CudaEngineEmulated, AnUntiedHeadAndHeadsWiderThanTheModelComputeTheSameModel) {
  // An LM head of its own (folded and prepacked, or as stored), and heads x head_dim = 4 x 32 = 128 wider than
  // hidden 64: o_proj's K is not the model width.
  for (const char* arch : {"llama", "kimi-linear"}) {
    jobs::EvalSettings s = testing::settings(arch);
    s.engine.model.tied_embeddings = false;
    s.engine.model.head_dim = 32;
    expect_correct(s, testing::genome_with({}));
    expect_correct(s, testing::genome_with({{"fold_norm", 1}, {"prepack", 1}, {"fuse_qkv", 0}}));
  }
}

TEST(CudaEngineEmulated, KernelVariantsComputeTheSameModel) {
  // Small tiles with a partial edge, attention tiles shorter than the trace's 73 positions, KDA state in registers.
  expect_correct(testing::settings("kimi-linear"), testing::genome_with({{"BM", 16},
                                                                         {"BN", 32},
                                                                         {"BK", 8},
                                                                         {"TM", 1},
                                                                         {"TN", 2},
                                                                         {"ATTN_THREADS", 32},
                                                                         {"ATTN_TILE", 32},
                                                                         {"NORM_THREADS", 32},
                                                                         {"kda_state_regs", 1},
                                                                         {"kv_block", 32}}));
  expect_correct(testing::settings("llama"), testing::genome_with({{"BM", 64},
                                                                   {"BN", 128},
                                                                   {"BK", 32},
                                                                   {"TM", 8},
                                                                   {"TN", 4},
                                                                   {"ATTN_THREADS", 256},
                                                                   {"ATTN_TILE", 128},
                                                                   {"NORM_THREADS", 256}}));
}

jobs::Genome with_weights(jobs::Genome g, const char* precision) {
  g.params["weights"] = std::string(precision);
  return g;
}

double peak_memory_mb(const TimeResult& t) {
  for (const auto& m : t.metrics)
    if (m.name == "peak_memory_mb") return m.value;
  return -1.0;
}

// weights: bf16, int8 and fp8 (docs/engines.md, "Precisions"): the projections stored as bf16, or as int8 or E4M3
// codes with a scale per output, and widened by the GEMMs as they load them reproduce the reference on the same
// rounded model, on every stored-weight path (fused or not, prepacked, split-K, kf_gemv, an untied head), in less
// device memory.
TEST(CudaEngineEmulated, NarrowWeightsReproduceTheReferenceOnTheRoundedModelInLessMemory) {
  for (const char* precision : {"bf16", "int8", "fp8"}) {
    expect_correct(testing::settings("kimi-linear"), with_weights(testing::genome_with({}), precision));
    expect_correct(testing::settings("llama"),
                   with_weights(testing::genome_with({{"prepack", 1}, {"fuse_qkv", 0}, {"SPLIT_K", 2}}), precision));
    expect_correct(testing::settings("llama"), with_weights(testing::genome_with({{"GEMV_ROWS", 8}}), precision));
  }
  jobs::EvalSettings untied = testing::settings("llama");
  untied.engine.model.tied_embeddings = false;
  expect_correct(untied, with_weights(testing::genome_with({{"fold_norm", 1}}), "bf16"));  // folding: left off
  expect_correct(untied, with_weights(testing::genome_with({{"fold_norm", 1}, {"prepack", 1}}), "int8"));
  std::map<std::string, double> peak;
  for (const char* precision : {"fp32", "bf16", "int8", "fp8"})
    peak[precision] = peak_memory_mb(
        verify_and_time(testing::settings("llama"), with_weights(testing::genome_with({}), precision)).timed);
  EXPECT_LT(peak["bf16"], peak["fp32"]);
  EXPECT_LT(peak["int8"], peak["bf16"]);
  EXPECT_EQ(peak["fp8"], peak["int8"]);  // one byte per weight and a scale per output, both
}

// The genome's precision reaches both sides: the bf16 layout read by the fp32 GEMM (the module built without
// KF_WEIGHTS_BF16) is a wrong result, not a quiet pass; so are int8 weights whose scales the GEMM leaves out, and
// fp8 codes decoded as int8.
TEST(CudaEngineEmulated, AGemmThatMisreadsThePrecisionIsAWrongResult) {
  EXPECT_EQ(verified_with_edit(with_weights(testing::genome_with({}), "bf16"), "#define KF_WEIGHTS_BF16 1",
                               "#define KF_WEIGHTS_BF16 0"),
            jobs::Status::wrong_result);
  EXPECT_EQ(verified_with_edit(with_weights(testing::genome_with({}), "int8"), "(col_scale != 0 ? col_scale[n] : 1.f)",
                               "1.f"),
            jobs::Status::wrong_result);
  EXPECT_EQ(verified_with_edit(with_weights(testing::genome_with({}), "fp8"),
                               "#define KF_WEIGHTS_INT8 0\n#define KF_WEIGHTS_FP8 1",
                               "#define KF_WEIGHTS_INT8 1\n#define KF_WEIGHTS_FP8 0"),
            jobs::Status::wrong_result);
}

// kf_gemv (GEMV_ROWS, GEMV_WARPS): the decode steps' projections, one warp per output, give kf_gemm's results on
// every path it takes: fp32 and bf16 rows in 16-byte vectors, rows that are not 16-byte aligned and the tail of K
// (mlp_hidden 90: down_proj's rows of 90 weights), the folded norm's row scale, the residual added by the GEMM.
TEST(CudaEngineEmulated, GemvForDecodeStepsComputesTheSameModel) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    expect_correct(testing::settings(arch), testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_WARPS", 2}}));
    expect_correct(testing::settings(arch),
                   with_weights(testing::genome_with({{"GEMV_ROWS", 2}, {"GEMV_WARPS", 8}, {"fuse_qkv", 0}}), "bf16"));
  }
  jobs::EvalSettings ragged = testing::settings("llama");
  ragged.engine.model.mlp_hidden = 90;
  expect_correct(ragged, testing::genome_with({{"GEMV_ROWS", 4}, {"fold_norm", 1}, {"residual_epilogue", 1}}));
  expect_correct(ragged, with_weights(testing::genome_with({{"GEMV_ROWS", 4}, {"residual_epilogue", 0}}), "bf16"));
  // GEMV_UNROLL: 2 and 4 vectors per lane in flight, down_proj's rows of 600 weights long enough for the unrolled
  // loop and a remainder after it (fp32: 512 weights per unrolled pass of 4; bf16: 512 per pass of 2).
  jobs::EvalSettings long_rows = testing::settings("llama");
  long_rows.engine.model.mlp_hidden = 600;
  expect_correct(long_rows, testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_UNROLL", 4}}));
  expect_correct(long_rows, with_weights(testing::genome_with({{"GEMV_ROWS", 2}, {"GEMV_UNROLL", 2}}), "bf16"));
  expect_correct(long_rows, with_weights(testing::genome_with({{"GEMV_ROWS", 4}, {"GEMV_UNROLL", 4}}), "int8"));
}

// GEMV_NORM: on the steps kf_gemv serves, the RMSNorm before each projection (and before the LM head) is kf_gemv's
// own: the raw rows, their mean square from a second pass over A, gamma on the weights or folded into them. The same
// model on both architectures, every precision, unfused projections (KDA's five read one norm), long rows unrolled;
// a kf_gemv that takes the mean over K - 1 or forgets gamma is a wrong result.
TEST(CudaEngineEmulated, TheNormFusedIntoGemvComputesTheSameModel) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    expect_correct(testing::settings(arch), testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_NORM", 1}}));
    expect_correct(testing::settings(arch),
                   with_weights(testing::genome_with({{"GEMV_ROWS", 2}, {"GEMV_NORM", 1}, {"fuse_qkv", 0}}), "bf16"));
  }
  expect_correct(testing::settings("llama"),
                 testing::genome_with({{"GEMV_ROWS", 4}, {"GEMV_NORM", 1}, {"fold_norm", 1}, {"fuse_gate_up", 0}}));
  jobs::EvalSettings long_rows = testing::settings("llama");
  long_rows.engine.model.hidden = 320;  // rows of 320 weights: the unrolled pass and its remainder
  long_rows.engine.model.tied_embeddings = false;
  expect_correct(long_rows,
                 with_weights(testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_NORM", 1}, {"GEMV_UNROLL", 2}}), "int8"));
  const jobs::Genome fused = testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_NORM", 1}});
  EXPECT_EQ(verified_with_edit(fused, "(float)K) + eps)", "(float)(K - 1)) + eps)"),  // the mean over K - 1
            jobs::Status::wrong_result);
  EXPECT_EQ(verified_with_edit(fused, "w[j] *= gamma[k + j];", "w[j] *= 1.f;"), jobs::Status::wrong_result);
}

// GEMV_SILU: on the steps kf_gemv serves, the fused gate and up projection writes SiLU(gate) * up itself (each warp
// streams a gate row and its up row). The same model on both architectures, with the fused norm, a folded one (the
// row scale on both sums), bf16 and int8 weights (up's own output scales), rows long enough for the unrolled pass,
// and gate and up unfused (then kf_silu_mul as before); a kf_gemv that drops the SiLU, or scales up with gate's
// scale, is a wrong result where the genome fuses it and harmless where it does not.
TEST(CudaEngineEmulated, TheSiluFusedIntoGemvComputesTheSameModel) {
  for (const char* arch : {"llama", "kimi-linear"})
    expect_correct(testing::settings(arch),
                   testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_SILU", 1}, {"GEMV_NORM", 1}}));
  jobs::EvalSettings wide = testing::settings("llama");
  wide.engine.model.hidden = 512;  // gate and up rows of 512 weights: two bf16 vectors per lane, unrolled
  expect_correct(wide,
                 with_weights(testing::genome_with({{"GEMV_ROWS", 2}, {"GEMV_SILU", 1}, {"GEMV_UNROLL", 2}}), "bf16"));
  expect_correct(testing::settings("llama"),
                 with_weights(testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_SILU", 1}}), "int8"));
  expect_correct(testing::settings("llama"),
                 testing::genome_with({{"GEMV_ROWS", 4}, {"GEMV_SILU", 1}, {"fold_norm", 1}}));
  expect_correct(testing::settings("llama"),
                 testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_SILU", 1}, {"fuse_gate_up", 0}}));
  for (const std::int64_t fused : {1, 0}) {
    const jobs::Genome g = with_weights(testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_SILU", fused}}), "int8");
    EXPECT_EQ(verified_with_edit(g, "v = v / (1.f + expf(-v)) * up;", "v = v * up;"),
              fused ? jobs::Status::wrong_result : jobs::Status::ok);
    EXPECT_EQ(verified_with_edit(g, "col_scale[N + n]", "col_scale[n]"),
              fused ? jobs::Status::wrong_result : jobs::Status::ok);
  }
}

// The plan really launches kf_gemv for decode steps, and only when the genome asks: the same wrong kf_gemv is a
// wrong result with GEMV_ROWS 8 and harmless with GEMV_ROWS 0 (never launched). An unrolled pass that skips its
// last vector is caught where rows are long enough to take it.
TEST(CudaEngineEmulated, AWrongGemvIsCaughtWhereTheGenomeUsesIt) {
  for (const std::int64_t rows : {8, 0})
    EXPECT_EQ(verified_with_edit(testing::genome_with({{"GEMV_ROWS", rows}}), "acc[m] += a[j] * w[j];",
                                 "acc[m] += a[j] * w[j] * 1.001f;"),
              rows > 0 ? jobs::Status::wrong_result : jobs::Status::ok)
        << "GEMV_ROWS " << rows;
  jobs::EvalSettings long_rows = testing::settings("llama");
  long_rows.engine.model.mlp_hidden = 600;
  EXPECT_EQ(verified_with_edit(testing::genome_with({{"GEMV_ROWS", 8}, {"GEMV_UNROLL", 4}}),
                               "for (int u = 0; u < GEMV_UNROLL; ++u)\n          if (p < pairs) {",
                               "for (int u = 0; u < GEMV_UNROLL - 1; ++u)\n          if (p < pairs) {", long_rows),
            jobs::Status::wrong_result);
}

// decode_graphs: each decode step (one token per sequence) replays the graph its batch size captured, with the
// step's positions, slots and block tables read from device memory, and computes the same model as launches one by
// one; the operators' marks recorded in the graph still split the step's time.
TEST(CudaEngineEmulated, DecodeStepsReplayedAsGraphsComputeTheSameModel) {
  for (const char* arch : {"llama", "kimi-linear"}) {
    ScratchDir scratch;
    const DeviceFactory emulate = emulated_devices(scratch.sub("emulated"));
    EmulatedEngineDevice* loaded = nullptr;
    CudaEngineBackend b(CudaBackendOptions{scratch.sub("cache"), 0}, [&](const ModuleImage& image) {
      std::unique_ptr<EngineDevice> d = emulate(image);
      if (loaded == nullptr) loaded = dynamic_cast<EmulatedEngineDevice*>(d.get());
      return d;
    });
    const jobs::EvalSettings s = testing::settings(arch);
    const EvalContext ctx = testing::context(s, scratch, "hopper");
    const jobs::Candidate c =
        testing::candidate(testing::genome_with({{"decode_graphs", 1}, {"kv_block", 16}, {"GEMV_ROWS", 2}}));
    const CompileResult compiled = b.compile(b.render(c), c, ctx);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    b.load(compiled);
    const VerifyResult v = b.verify(ctx);
    ASSERT_EQ(v.status, jobs::Status::ok) << arch << ": " << v.evidence << " " << v.failed_case;
    EXPECT_LT(v.max_rel_error, 1e-5);
    ASSERT_NE(loaded, nullptr);
    const auto most_sequences = static_cast<std::size_t>(
        std::max<std::int64_t>(kernels::engine::verification_needs().most_sequences, 2));  // max_batch 2
    EXPECT_GE(loaded->graphs(), 1u) << arch;
    EXPECT_LE(loaded->graphs(), most_sequences) << arch << ": one graph per batch size";
    EXPECT_GT(loaded->replays(), static_cast<std::int64_t>(loaded->graphs()) + 2) << arch << ": graphs replayed";
    const TimeResult t = b.time(ctx);
    ASSERT_EQ(t.status, jobs::Status::ok) << t.evidence;
    double shares = 0.0;
    for (const auto& m : t.metrics)
      if (m.name.starts_with("op_share.")) shares += m.value;
    EXPECT_NEAR(shares, 1.0, 1e-9) << arch;
  }
}

TEST(CudaEngineEmulated, ServingFiguresHaveTheirUnitsAndTheOperatorsShareAddsUp) {
  const Served r = verify_and_time(testing::settings("kimi-linear"), testing::genome_with({}));
  ASSERT_EQ(r.timed.status, jobs::Status::ok) << r.timed.evidence;
  std::map<std::string, jobs::Metric> m;
  for (const auto& x : r.timed.metrics) m[x.name] = x;
  EXPECT_EQ(m.at("output_tokens_per_s").unit, "tokens/s");
  EXPECT_GT(m.at("output_tokens_per_s").value, 0.0);
  EXPECT_GT(m.at("peak_memory_mb").value, 0.0);  // the device memory the plan allocated
  double shares = 0.0;
  for (const auto op : kernels::engine::kOperators) shares += m.at("op_share." + std::string(op)).value;
  EXPECT_NEAR(shares, 1.0, 1e-9);
  EXPECT_GT(m.at("op_share.kda").value, 0.0);
  EXPECT_GT(m.at("op_share.attention").value, 0.0);
}

TEST(CudaEngineEmulated, TheReferenceBaselineServesTheSameTrace) {
  ScratchDir scratch;
  CudaEngineBackend b = testing::emulated_backend(scratch);
  const jobs::EvalSettings s = testing::settings("llama");
  const auto baselines = b.time_baselines(testing::context(s, scratch, "hopper"));
  ASSERT_EQ(baselines.size(), 1u);
  EXPECT_EQ(baselines[0].name, "reference");
  EXPECT_GT(baselines[0].time_median_ms, 0.0);
}

// Every served run (the warm-up too) gets a device of its own: a module loaded anew (its globals reset) and a launch
// plan with fresh caches and states; two more measure the device's bandwidth (none on the fake GPU: no floor).
TEST(CudaEngineEmulated, EveryServedRunGetsAFreshModuleAndPlan) {
  ScratchDir scratch;
  int devices = 0;
  const DeviceFactory emulate = emulated_devices(scratch.sub("emulated"));
  CudaEngineBackend b(CudaBackendOptions{scratch.sub("cache"), 0}, [&](const ModuleImage& image) {
    ++devices;
    return emulate(image);
  });
  jobs::EvalSettings s = testing::settings("llama");
  s.warmup = 1;
  s.min_repeats = s.max_repeats = 2;
  s.time_cap_s = 600;  // both timed runs, however slow the emulation
  const EvalContext ctx = testing::context(s, scratch, "hopper");
  const jobs::Candidate c = testing::candidate(testing::genome_with({}));
  const CompileResult compiled = b.compile(b.render(c), c, ctx);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  b.load(compiled);
  ASSERT_EQ(b.verify(ctx).status, jobs::Status::ok);
  EXPECT_EQ(devices, 1);
  const TimeResult t = b.time(ctx);
  EXPECT_EQ(t.status, jobs::Status::ok) << t.evidence;
  EXPECT_EQ(devices, 1 + 2 + 3);  // load, the bandwidth probes before and after, a warm-up and two timed runs
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
