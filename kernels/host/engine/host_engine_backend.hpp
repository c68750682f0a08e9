#pragma once
// The host backend of the engine family (docs/engines.md): a candidate is a whole inference engine, C++ rendered
// from the genome (engine_template.hpp) or written by an agent, compiled to a shared object and run in a confined
// candidate process of its own, which keeps the engine's state (weights, KV caches, KDA states) between calls.
// The harness owns everything that decides the verdict and the figures: the verification trace against the
// double reference (engine_verification.hpp), the serving loop with its batching policy and virtual clock
// (serving_loop.hpp), and the SLO check.
#include <filesystem>
#include <memory>
#include <optional>

#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/serving_loop.hpp"
#include "kforge/kernels/backend.hpp"
#include "sandbox/candidate_process.hpp"

namespace kforge::kernels::engine {

class HostEngineBackend final : public Backend {
 public:
  std::string name() const override { return "host"; }
  std::string family() const override { return "engine"; }
  std::string render(const jobs::Candidate& c) const override;
  CompileResult compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) override;
  void load(const CompileResult& compiled) override;
  VerifyResult verify(const EvalContext& ctx) override;
  TimeResult time(const EvalContext& ctx) override;
  std::vector<jobs::Baseline> time_baselines(const EvalContext& ctx) override;
  bool times_on_shared_cores() const override { return true; }
  bool runs_candidate_code_apart() const override { return true; }

 private:
  // Loads the weights and the reference, and makes the kInit call once (the first verify() or time() of a load()).
  void ensure_initialised(const EvalContext& ctx);
  host::CandidateProcess& process() const;  // throws std::logic_error before a successful load()
  // A new candidate process for timed run `run`, initialised, in a scratch folder of its own holding only a copy of
  // the engine's shared object; the previous process is gone first (its peak memory noted) and its folder removed.
  void start_fresh_process(const EvalContext& ctx, int run);

  BatchPolicy policy_;  // the candidate's, from compile() (it runs before load() in the same object)
  WeightPrecision precision_ = WeightPrecision::fp32;  // the candidate's declared weights, from compile()
  std::filesystem::path artefact_;
  std::filesystem::path run_folder_;  // the current timed run's scratch folder ("" before the first)
  std::unique_ptr<host::CandidateProcess> process_;
  std::optional<Weights> weights_;
  std::optional<ReferenceEngine> reference_;
  bool initialised_ = false;
  double peak_mib_ = 0.0;     // the largest VmHWM of this load()'s candidate processes
  double envelope_ms_ = 0.0;  // what verify()'s serving envelope took
};

}  // namespace kforge::kernels::engine
