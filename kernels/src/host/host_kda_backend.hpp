#pragma once
// The host backend for the kda family (Kimi Delta Attention forward): the system C++ compiler builds the
// candidate into a shared object, which is loaded into a confined candidate process of its own
// (candidate_process.hpp), verified against the per-token recurrence in double
// and timed on this CPU, so KDA campaigns also run on CPU nodes.
#include <memory>

#include "host/candidate_process.hpp"
#include "host/kda_problem.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::host {

class HostKdaBackend final : public Backend {
 public:
  std::string name() const override { return "host"; }
  std::string family() const override { return "kda"; }
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
