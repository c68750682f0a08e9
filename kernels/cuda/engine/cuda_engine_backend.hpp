#pragma once
// The cuda backend of the engine family (docs/engines.md, "The cuda engine"). A candidate is an engine whose
// arithmetic is one CUDA module (cuda_engine_source.hpp) and whose structure is its genome: compile() runs NVRTC
// for the island's sm_90a / sm_100a with the model's layout defines and checks every kernel's ptxas figures at its
// largest launch (no GPU needed); load(), verify() and time() run in the candidate's sandboxed child, where the
// launch plan (cuda_engine_plan.hpp) serves the verification traces and the workload on the GPU. Verification,
// serving, the checks after every run, the SLO and the figures are the host engine's (serving_verdict.hpp): only
// how a step runs differs, and each served run gets a fresh module and plan.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arch.hpp"
#include "cuda_engine_params.hpp"
#include "cuda_engine_plan.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/kernels/cuda/cuda_backend.hpp"
#include "module_compile.hpp"

namespace kforge::kernels::cuda::engine {

// What a device needs to run a compiled module: the cubin, and (for the CPU emulation in tests) the source and
// the harness's defines it was compiled with.
struct ModuleImage {
  std::filesystem::path cubin;
  std::filesystem::path harness_cubin;  // the harness's module (cuda_engine_pick.hpp) for the same target
  std::string source;
  std::vector<std::string> defines;  // -DKF_HEAD_DIM=.. -DKF_PREPACK=.. -DKF_KV_BLOCK=..
  const ArchSpec* arch = nullptr;
};
using DeviceFactory = std::function<std::unique_ptr<EngineDevice>(const ModuleImage&)>;

// The GPU: a fresh context on device 0 of the child, the module loaded in it. Throws NoCudaDevice without one, and
// std::runtime_error when the GPU's compute capability is not the module's architecture.
std::unique_ptr<EngineDevice> make_gpu_device(const ModuleImage& image);

// The double reference's threads (reference_engine.hpp): the CPUs kforge-eval gave this rank (KFORGE_CPUS_PER_RANK),
// or 1. The GPU runs the candidate; the rank's cores would otherwise idle while one of them checks it.
void use_the_ranks_cpus_for_the_reference();

class CudaEngineBackend final : public Backend {
 public:
  explicit CudaEngineBackend(CudaBackendOptions options = {}, DeviceFactory device = make_gpu_device);
  ~CudaEngineBackend() override;

  std::string name() const override { return "cuda"; }
  std::string family() const override { return "engine"; }
  std::string render(const jobs::Candidate& c) const override;
  CompileResult compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) override;
  void load(const CompileResult& compiled) override;
  VerifyResult verify(const EvalContext& ctx) override;
  TimeResult time(const EvalContext& ctx) override;
  // "reference": the double reference engine on the node's CPU; "cublas" and "cublas_bf16": the default genome's
  // module with every projection through cuBLAS at fp32 or bf16, on the GPU (cuda_engine_baselines.cpp). All serve
  // the same trace on the same virtual clock.
  std::vector<jobs::Baseline> time_baselines(const EvalContext& ctx) override;
  bool creates_device_context() const override { return true; }

  // The harness's defines for a model and genome: the module's layouts (head dim, prepacked weights, KV blocks).
  static std::vector<std::string> layout_defines(const jobs::ModelSpec& model, const CudaEngineParams& p);

 private:
  static const jobs::EvalSettings& settings_of(const EvalContext& ctx);  // throws when the context has none
  void ensure_plan(const EvalContext& ctx);
  CompileResult compile_module(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx,
                               CompileIn where);
  std::filesystem::path cache_root(const EvalContext& ctx) const;
  // image_.harness_cubin for `arch`, or why it could not be built.
  std::optional<std::string> build_harness_module(const EvalContext& ctx, const jobs::EvalSettings& s,
                                                  const ArchSpec& arch, CompileIn where);
  // A cuBLAS engine (the default genome's module, its projections through cuBLAS) serving the workload; with
  // graphs, its decode steps captured (serve_cublas_graphed: without them should a capture fail).
  kernels::engine::ServedRuns serve_cublas(const EvalContext& ctx, const kernels::engine::Weights& model_weights,
                                           bool bf16, bool graphs);
  kernels::engine::ServedRuns serve_cublas_graphed(const EvalContext& ctx,
                                                   const kernels::engine::Weights& model_weights,
                                                   const std::string& name);

  CudaBackendOptions options_;
  DeviceFactory make_device_;
  // From compile() (it runs before load() in the same object): what load() and the plan need.
  kernels::engine::BatchPolicy policy_;
  CudaEngineParams params_;
  ModuleImage image_;
  // Run stage, in the child.
  std::unique_ptr<EngineDevice> device_;
  std::optional<kernels::engine::Weights> weights_;
  std::optional<kernels::engine::ReferenceEngine> reference_;  // checks the served runs (served_checks.hpp)
  std::unique_ptr<CudaEnginePlan> plan_;
  double envelope_ms_ = 0.0;  // what verify()'s serving envelope took
};

}  // namespace kforge::kernels::cuda::engine
