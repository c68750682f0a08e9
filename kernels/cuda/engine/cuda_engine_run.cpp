// CudaEngineBackend, run stage (in the candidate's sandboxed child): the module on the device, the launch plan
// serving the verification traces and the workload, and the baselines on the same trace and clock.
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "cublas_gemm.hpp"
#include "cuda_engine_backend.hpp"
#include "driver_engine_device.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "kforge/kernels/timing.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

namespace abi = kernels::engine;
constexpr const char* kBackend = "cuda engine backend";

abi::StepFn step_of(CudaEnginePlan& plan) {
  return
      [&plan](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens) { return plan.step(seqs, tokens); };
}

// The double reference engine as a step function, timed by the wall clock around its step alone.
abi::ServedRuns serve_reference(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const abi::Weights& weights) {
  const abi::BatchPolicy policy = abi::baseline_policy();
  const abi::EngineSizes z = abi::engine_sizes_for(e, policy);
  abi::ReferenceEngine reference(e.model, weights, static_cast<int>(z.slots), static_cast<int>(z.max_context));
  const abi::StepFn step = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens) {
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

}  // namespace

std::unique_ptr<EngineDevice> make_gpu_device(const ModuleImage& image) {
  auto session = std::make_unique<DeviceSession>();  // throws NoCudaDevice without a GPU (infra_error)
  const int cc = session->compute_capability();
  if (image.arch != nullptr && cc != std::stoi(image.arch->arch.substr(3)))
    throw std::runtime_error("cuda engine backend: the module is for " + image.arch->arch + " but this GPU (" +
                             session->name() + ") has compute capability " + std::to_string(cc / 10) + "." +
                             std::to_string(cc % 10) + ": the island's target does not match the node's GPUs");
  return std::make_unique<DriverEngineDevice>(std::move(session), read_cubin(image.cubin));
}

void CudaEngineBackend::load(const CompileResult& compiled) {
  plan_.reset();
  device_.reset();
  image_.cubin = compiled.artefact;
  device_ = make_device_(image_);
}

void CudaEngineBackend::ensure_plan(const EvalContext& ctx) {
  if (plan_) return;
  if (!device_) throw std::logic_error("cuda engine backend: verify()/time() called before a successful load()");
  const jobs::EngineSpec& e = abi::engine_of(settings_of(ctx), kBackend);
  // The engine and the reference serve the model rounded to the precision the genome stores (one load per backend;
  // a later candidate of another precision rounds a fresh copy), as the host engine's backend does.
  if (!weights_ || weights_->precision != params_.weights) {
    reference_.reset();
    weights_ = abi::load_weights(e.model);
    abi::round_weights(*weights_, params_.weights);
  }
  if (!reference_) reference_.emplace(e.model, *weights_, 1, 1);  // teacher_forced only: no slots used
  plan_ = std::make_unique<CudaEnginePlan>(*device_, e.model, *weights_, params_, abi::engine_sizes_for(e, policy_));
}

VerifyResult CudaEngineBackend::verify(const EvalContext& ctx) {
  ensure_plan(ctx);
  const jobs::EvalSettings& s = settings_of(ctx);
  const jobs::EngineSpec& e = abi::engine_of(s, kBackend);
  return abi::verify_served_engine(s, e, policy_, *weights_, *reference_, ctx.seed, step_of(*plan_), &envelope_ms_);
}

TimeResult CudaEngineBackend::time(const EvalContext& ctx) {
  ensure_plan(ctx);
  const jobs::EvalSettings& s = settings_of(ctx);
  const jobs::EngineSpec& e = abi::engine_of(s, kBackend);
  // The device's bandwidth, on a device of its own that is gone before the runs (its buffers are not the plan's);
  // before and after them, the larger (physical_floor.hpp).
  const auto bandwidth_now = [&] {
    return make_device_(image_)->copy_bandwidth(
        static_cast<std::size_t>(abi::weight_bytes_per_step(e.model, abi::WeightPrecision::fp32)));
  };
  double bandwidth = bandwidth_now();
  double peak_mib = 0.0;
  const abi::FreshEngine fresh = [&] {  // a new module (its globals reset) and plan (caches, states) per run
    peak_mib = std::max(peak_mib, device_ ? device_->used_memory_mib() : 0.0);
    plan_.reset();
    device_.reset();
    device_ = make_device_(image_);
    plan_ = std::make_unique<CudaEnginePlan>(*device_, e.model, *weights_, params_, abi::engine_sizes_for(e, policy_));
    return step_of(*plan_);
  };
  const abi::ServedRuns served = abi::serve_repeatedly(s, e, policy_, fresh, &*reference_);
  peak_mib = std::max(peak_mib, device_ ? device_->used_memory_mib() : 0.0);
  bandwidth = std::max(bandwidth, bandwidth_now());
  const abi::VerdictContext verdict{
      peak_mib, image_.arch->peak_bf16_flop_per_s,
      " (the " + image_.arch->target + " bf16 tensor-core peak, above anything an fp32 engine can do)", bandwidth,
      envelope_ms_};
  return abi::judge_served(served, e, *weights_, verdict);
}

std::vector<jobs::Baseline> CudaEngineBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx);
  const jobs::EngineSpec& e = abi::engine_of(s, kBackend);
  for (const auto& name : s.baselines)
    if (name != "reference" && name != "cublas")
      throw std::invalid_argument("cuda engine backend: unknown baseline '" + name + "' (known: reference, cublas)");
  std::vector<jobs::Baseline> out;
  if (s.baselines.empty()) return out;
  const abi::Weights weights = abi::load_weights(e.model);
  const std::string host = jobs::host_name();
  for (const auto& name : s.baselines) {
    abi::ServedRuns served;
    if (name == "reference") {
      served = serve_reference(s, e, weights);
    } else {
      // The default genome's kernels with every projection through cuBLAS: weights as the model stores them (no
      // prepack, no folded norm), fused projections, residuals added by the GEMM (beta = 1).
      jobs::Candidate ref;
      ref.family = "engine";
      ref.backend = "cuda";
      ref.genome = default_cuda_engine_genome();
      for (const char* off : {"fold_norm", "prepack"}) ref.genome.params[off] = std::int64_t{0};
      for (const char* on : {"fuse_qkv", "fuse_gate_up", "residual_epilogue"}) ref.genome.params[on] = std::int64_t{1};
      ref.genome.params["SPLIT_K"] = std::int64_t{1};
      jobs::assign_id(ref);
      CudaEngineBackend module(options_, make_device_);
      const CompileResult compiled = module.compile_module(render(ref), ref, ctx, CompileIn::this_process);
      if (!compiled.ok)
        throw std::runtime_error("cuda engine backend: the cuBLAS baseline's module does not compile:\n" +
                                 compiled.log);
      module.load(compiled);
      auto* gpu = dynamic_cast<DriverEngineDevice*>(module.device_.get());
      if (gpu == nullptr) throw InfrastructureError("cuda engine backend: the cublas baseline needs a GPU");
      CublasGemm cublas;
      CudaEnginePlan plan(*gpu, e.model, weights, module.params_, abi::engine_sizes_for(e, module.policy_),
                          [&](const GemmCall& c) {
                            if (c.row_scale != 0 || c.col_scale != 0)
                              throw std::logic_error("cuda engine: the cuBLAS baseline takes fp32 weights unscaled");
                            cublas.run_fp32_nt(gpu->stream(), c.a, c.lda, c.w, c.c, c.ldc, c.m, c.n, c.k, c.accumulate);
                          });
      served = abi::serve_repeatedly(s, e, module.policy_, [&] { return step_of(plan); });
    }
    if (!served.failure.empty()) throw std::runtime_error("the " + name + " baseline failed: " + served.failure);
    out.push_back(baseline_from(name, TimedSamples{served.samples_ms, ""}, host));
  }
  return out;
}

}  // namespace kforge::kernels::cuda::engine
