#pragma once
// The "replay" backend: evaluation looks up what a real GPU measured for the configuration (ReplaySpace).
// Outcomes, chosen to match what happened on the GPU:
//   not in the cache (violates the constraints)  -> compile() fails with resource_reject
//   "CompilationFailedConfig"                     -> compile() fails with compile_error
//   "RuntimeFailedConfig" (or other failure text) -> verify() returns crash
//   measured                                      -> verify() ok; time() returns the cached "times" samples (ms)
// The cache file is EvalSettings::replay_cache; spaces are loaded once per process and shared.
#include <memory>
#include <string>

#include "kforge/kernels/backend.hpp"
#include "kforge/kernels/replay_space.hpp"

namespace kforge::kernels::replay {

// The space of one cache file, loaded on first use and kept for the life of the process.
std::shared_ptr<const ReplaySpace> shared_space(const std::string& cache_path);

class ReplayBackend final : public Backend {
 public:
  explicit ReplayBackend(std::string family) : family_(std::move(family)) {}
  std::string name() const override { return "replay"; }
  std::string family() const override { return family_; }
  std::string render(const jobs::Candidate& c) const override;
  CompileResult compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) override;
  void load(const CompileResult& compiled) override;
  VerifyResult verify(const EvalContext& ctx) override;
  TimeResult time(const EvalContext& ctx) override;
  std::vector<jobs::Baseline> time_baselines(const EvalContext& ctx) override;

 private:
  std::string family_;
  std::shared_ptr<const ReplaySpace> space_;
  ReplayLookup current_;      // the configuration compile() looked up; the child runs it (fork keeps it)
  std::string current_text_;  // its genome text, for evidence
  bool compiled_ = false;
};

}  // namespace kforge::kernels::replay
