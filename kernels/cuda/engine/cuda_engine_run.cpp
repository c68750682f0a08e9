// CudaEngineBackend, run stage (in the candidate's sandboxed child): the module on the device, the launch plan
// serving the verification traces and the workload (the baselines: cuda_engine_baselines.cpp).
#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "cuda_engine_backend.hpp"
#include "driver_engine_device.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/engine/weight_precision.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

namespace abi = kernels::engine;
constexpr const char* kBackend = "cuda engine backend";

}  // namespace

void use_the_ranks_cpus_for_the_reference() {
  const char* cpus = std::getenv("KFORGE_CPUS_PER_RANK");  // kforge-eval's share of the node for this rank
  if (cpus == nullptr || *cpus == '\0') return;
  char* end = nullptr;
  const long n = std::strtol(cpus, &end, 10);
  if (end != cpus && *end == '\0' && n >= 1) abi::set_reference_threads(static_cast<int>(std::min(n, 64L)));
}

std::unique_ptr<EngineDevice> make_gpu_device(const ModuleImage& image) {
  auto session = std::make_unique<DeviceSession>();  // throws NoCudaDevice without a GPU (infra_error)
  const int cc = session->compute_capability();
  if (image.arch != nullptr && cc != std::stoi(image.arch->arch.substr(3)))
    throw std::runtime_error("cuda engine backend: the module is for " + image.arch->arch + " but this GPU (" +
                             session->name() + ") has compute capability " + std::to_string(cc / 10) + "." +
                             std::to_string(cc % 10) + ": the island's target does not match the node's GPUs");
  return std::make_unique<DriverEngineDevice>(std::move(session), read_cubin(image.cubin),
                                              read_cubin(image.harness_cubin));
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
  use_the_ranks_cpus_for_the_reference();
  if (!reference_) reference_.emplace(e.model, *weights_, 1, 1);  // teacher_forced only: no slots used
  plan_ = std::make_unique<CudaEnginePlan>(*device_, e.model, *weights_, params_, abi::engine_sizes_for(e, policy_));
}

VerifyResult CudaEngineBackend::verify(const EvalContext& ctx) {
  ensure_plan(ctx);
  const jobs::EvalSettings& s = settings_of(ctx);
  const jobs::EngineSpec& e = abi::engine_of(s, kBackend);
  return abi::verify_served_engine(s, e, policy_, *weights_, *reference_, ctx.seed, step_function(*plan_),
                                   &envelope_ms_, abi::logit_tolerance(params_.activations));
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
    return step_function(*plan_);
  };
  const abi::ServedRuns served =
      abi::serve_repeatedly(s, e, policy_, fresh, &*reference_, abi::logit_tolerance(params_.activations));
  peak_mib = std::max(peak_mib, device_ ? device_->used_memory_mib() : 0.0);
  bandwidth = std::max(bandwidth, bandwidth_now());
  const abi::VerdictContext verdict{
      peak_mib,
      image_.arch->peak_bf16_flop_per_s,
      " (the " + image_.arch->target + " bf16 tensor-core peak, above anything an fp32 engine can do)",
      bandwidth,
      envelope_ms_,
      params_.activations};
  return abi::judge_served(served, e, *weights_, verdict);
}

}  // namespace kforge::kernels::cuda::engine
