#pragma once
// CudaBackend: one family, NVRTC for the compile stage (cuda_compile_stage.cpp) and the driver API for the run
// stage (cuda_run_stage.cpp). compile() runs in the evaluating rank; load(), verify(), time() and
// time_baselines() in the candidate's child process, where the device session is created (never before fork).
#include <memory>
#include <optional>

#include "arch.hpp"
#include "case_run.hpp"
#include "compile_cache.hpp"
#include "device.hpp"
#include "family.hpp"
#include "kforge/kernels/cuda/cuda_backend.hpp"
#include "module_compile.hpp"
#include "resource_check.hpp"

namespace kforge::kernels::cuda {

class CudaBackend final : public Backend {
 public:
  CudaBackend(std::unique_ptr<CudaFamily> family, CudaBackendOptions options);
  ~CudaBackend() override;

  std::string name() const override { return "cuda"; }
  std::string family() const override { return family_->name(); }
  std::string render(const jobs::Candidate& c) const override;
  CompileResult compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) override;
  void load(const CompileResult& compiled) override;
  VerifyResult verify(const EvalContext& ctx) override;
  TimeResult time(const EvalContext& ctx) override;
  std::vector<jobs::Baseline> time_baselines(const EvalContext& ctx) override;
  bool creates_device_context() const override { return true; }

  bool last_compile_was_cache_hit() const { return last_cache_hit_; }
  const CudaFamily& cuda_family() const { return *family_; }

 private:
  CompileResult compile_with(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx,
                             CompileIn where);
  std::filesystem::path cache_root(const EvalContext& ctx) const;
  // The campaign's evaluation.max_spill_bytes, or the backend option when that is larger.
  std::int64_t spill_limit(const EvalContext& ctx) const;
  DeviceSession& session();

  // One verification launch on fresh buffers, checked right behind it (case_run.hpp).
  CheckOutcome run_case(const HostCase& hc, const LaunchConfig& l);
  // Timed launches on one set of buffers; `last` (if given) gets what the last timed launch left.
  std::vector<double> time_case(const HostCase& hc, const std::function<void(CaseRun&)>& launch,
                                const jobs::EvalSettings& s, CaseReadback* last);

  std::unique_ptr<CudaFamily> family_;
  CudaBackendOptions options_;
  bool last_cache_hit_ = false;
  // Run stage, in the child: the loaded candidate.
  std::unique_ptr<DeviceSession> session_;
  std::unique_ptr<LoadedKernel> kernel_;
  jobs::Genome genome_;
  const ArchSpec* arch_ = nullptr;
};

}  // namespace kforge::kernels::cuda
