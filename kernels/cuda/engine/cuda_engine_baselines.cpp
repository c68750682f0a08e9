// CudaEngineBackend's baselines (docs/engines.md, "The cuda engine"), serving the candidates' trace: the double
// reference engine on the node's CPU, and the cuBLAS engines on the GPU, the default genome's kernels with every
// projection through cuBLAS at fp32 ("cublas") or bf16 ("cublas_bf16").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "cublas_gemm.hpp"
#include "cuda_engine_backend.hpp"
#include "cuda_engine_launches.hpp"
#include "driver_engine_device.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "kforge/kernels/timing.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

namespace abi = kernels::engine;
constexpr const char* kBackend = "cuda engine backend";
const std::vector<std::string> kBaselines = {"reference", "cublas", "cublas_bf16"};

// The double reference engine as a step function, timed by the wall clock around its step alone.
abi::ServedRuns serve_reference(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const abi::Weights& weights) {
  const abi::BatchPolicy policy = abi::baseline_policy();
  const abi::EngineSizes z = abi::engine_sizes_for(e, policy);
  abi::ReferenceEngine reference(e.model, weights, static_cast<int>(z.slots), static_cast<int>(z.max_context));
  const abi::StepFn step = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens,
                               const abi::RowWants&) {
    const auto started = std::chrono::steady_clock::now();
    const std::vector<double> logits = reference.step({seqs.begin(), seqs.end()}, {tokens.begin(), tokens.end()});
    StepOutcome out;
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    out.logits.assign(logits.begin(), logits.end());
    out.op_seconds = reference.last_step_seconds();
    return out;
  };
  return abi::serve_repeatedly(s, e, policy, [&] { return step; });
}

// The default genome as a cuBLAS engine runs it: weights as the model stores them (no prepack, no folded norm),
// fused projections, residuals added by the GEMM (beta = 1), at the given precision, decode steps as CUDA graphs
// (as vLLM and TensorRT-LLM serve them) or not.
jobs::Candidate cublas_engine(abi::WeightPrecision precision, bool graphs) {
  jobs::Candidate ref;
  ref.family = "engine";
  ref.backend = "cuda";
  ref.genome = default_cuda_engine_genome();
  for (const char* off : {"fold_norm", "prepack"}) ref.genome.params[off] = std::int64_t{0};
  for (const char* on : {"fuse_qkv", "fuse_gate_up", "residual_epilogue"}) ref.genome.params[on] = std::int64_t{1};
  ref.genome.params["SPLIT_K"] = std::int64_t{1};
  ref.genome.params["weights"] = std::string(abi::precision_name(precision));
  ref.genome.params["decode_graphs"] = std::int64_t{graphs ? 1 : 0};
  jobs::assign_id(ref);
  return ref;
}

// The widest input of any projection: the bf16 copy of a GEMM's A holds most_tokens rows of it.
std::int64_t widest_projection_input(const jobs::ModelSpec& m) {
  return std::max({m.hidden, m.heads * m.head_dim, m.mlp_hidden});
}

}  // namespace

abi::ServedRuns CudaEngineBackend::serve_cublas(const EvalContext& ctx, const abi::Weights& model_weights, bool bf16,
                                                bool graphs) {
  const jobs::EvalSettings& s = settings_of(ctx);
  const jobs::EngineSpec& e = abi::engine_of(s, kBackend);
  const abi::WeightPrecision precision = bf16 ? abi::WeightPrecision::bf16 : abi::WeightPrecision::fp32;
  const jobs::Candidate ref = cublas_engine(precision, graphs);
  CudaEngineBackend module(options_, make_device_);
  const CompileResult compiled = module.compile_module(render(ref), ref, ctx, CompileIn::this_process);
  if (!compiled.ok)
    throw std::runtime_error("cuda engine backend: the cuBLAS baseline's module does not compile:\n" + compiled.log);
  module.load(compiled);
  auto* gpu = dynamic_cast<DriverEngineDevice*>(module.device_.get());
  if (gpu == nullptr) throw InfrastructureError("cuda engine backend: the cublas baselines need a GPU");
  abi::Weights weights = model_weights;
  abi::round_weights(weights, precision);  // a bf16 candidate's model, for cublas_bf16
  const abi::EngineSizes sizes = abi::engine_sizes_for(e, module.policy_);
  CublasGemm cublas;
  // cublasGemmEx takes A and B of one type: at bf16 each projection's input is rounded into a scratch buffer by the
  // module's kf_to_bf16 first, as a bf16 engine keeps its activations.
  const std::uint64_t a16 =
      bf16 ? gpu->allocate(static_cast<std::size_t>(sizes.most_tokens * widest_projection_input(e.model)) *
                           sizeof(std::uint16_t))
           : 0;
  const GemmFn gemm = [&, a16](const GemmCall& c) {
    if (c.row_scale != 0 || c.col_scale != 0 || c.norm || c.silu)
      throw std::logic_error("cuda engine: the cuBLAS baseline takes its weights unscaled and normed inputs");
    if (!bf16) {
      cublas.run_fp32_nt(gpu->stream(), c.a, c.lda, c.w, c.c, c.ldc, c.m, c.n, c.k, c.accumulate);
      return;
    }
    KernelArgs args;
    args.pointer(c.a).i32(c.lda).pointer(a16).i32(c.m).i32(c.k);
    gpu->launch("kf_to_bf16", elementwise_launch(module.params_, std::int64_t{c.m} * c.k), args);
    cublas.run_bf16_nt(gpu->stream(), a16, c.k, c.w, c.c, c.ldc, c.m, c.n, c.k, c.accumulate);
  };
  CudaEnginePlan plan(*gpu, e.model, weights, module.params_, sizes, gemm);
  return abi::serve_repeatedly(s, e, module.policy_, [&] { return step_function(plan); });
}

// cuBLAS captures into graphs since CUDA 12.2 (its workspace comes from stream-ordered allocations); should a
// capture fail all the same, the baseline is served kernel by kernel and the log says so.
abi::ServedRuns CudaEngineBackend::serve_cublas_graphed(const EvalContext& ctx, const abi::Weights& model_weights,
                                                        const std::string& name) {
  const bool bf16 = name == "cublas_bf16";
  try {
    return serve_cublas(ctx, model_weights, bf16, true);
  } catch (const InfrastructureError&) {
    throw;  // no GPU, no cuBLAS: graphs are not the matter
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "[kforge] the %s baseline's decode steps could not be captured as graphs (%s): served "
                 "kernel by kernel\n",
                 name.c_str(), e.what());
    return serve_cublas(ctx, model_weights, bf16, false);
  }
}

std::vector<jobs::Baseline> CudaEngineBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx);
  const jobs::EngineSpec& e = abi::engine_of(s, kBackend);
  for (const auto& name : s.baselines)
    if (std::find(kBaselines.begin(), kBaselines.end(), name) == kBaselines.end())
      throw std::invalid_argument("cuda engine backend: unknown baseline '" + name +
                                  "' (known: reference, cublas, cublas_bf16)");
  std::vector<jobs::Baseline> out;
  if (s.baselines.empty()) return out;
  use_the_ranks_cpus_for_the_reference();
  const abi::Weights weights = abi::load_weights(e.model);
  const std::string host = jobs::host_name();
  for (const auto& name : s.baselines) {
    const abi::ServedRuns served =
        name == "reference" ? serve_reference(s, e, weights) : serve_cublas_graphed(ctx, weights, name);
    if (!served.failure.empty()) throw std::runtime_error("the " + name + " baseline failed: " + served.failure);
    out.push_back(baseline_from(name, TimedSamples{served.samples_ms, ""}, host));
  }
  return out;
}

}  // namespace kforge::kernels::cuda::engine
