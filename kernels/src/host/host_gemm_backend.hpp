#pragma once
// The host backend for the gemm family: the system C++ compiler builds the candidate into a shared object,
// loaded into a confined candidate process of its own (candidate_process.hpp), verified against a
// double-precision reference and timed on this CPU by the harness.
#include <memory>

#include "gemm_problem.hpp"
#include "host/candidate_process.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::host {

class HostGemmBackend final : public Backend {
 public:
  std::string name() const override { return "host"; }
  std::string family() const override { return "gemm"; }
  std::string render(const jobs::Candidate& c) const override;
  CompileResult compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) override;
  void load(const CompileResult& compiled) override;
  VerifyResult verify(const EvalContext& ctx) override;
  TimeResult time(const EvalContext& ctx) override;
  std::vector<jobs::Baseline> time_baselines(const EvalContext& ctx) override;

 private:
  CandidateProcess& process() const;  // throws std::logic_error before a successful load()

  std::unique_ptr<CandidateProcess> process_;
};

}  // namespace kforge::kernels::host
