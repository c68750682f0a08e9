#pragma once
// The host backend of a kernel family (gemm, kda): one backend for every family, with what differs between families
// behind the HostFamily concept (the host counterpart of the cuda backend's CudaFamily). The system C++ compiler
// builds a candidate into a shared object, loaded into a confined candidate process of its own
// (sandbox/candidate_process.hpp), verified against the family's double-precision reference and timed on this CPU
// by the harness: every timed call gets fresh inputs (so a result remembered from an earlier call is wrong) and
// poisoned outputs, copied in while the candidate process is stopped; only the call is under the clock; every
// result is spot-checked.
#include <concepts>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/kernels/backend.hpp"
#include "kforge/kernels/timing.hpp"
#include "kforge/kernels/verification.hpp"
#include "sandbox/candidate_process.hpp"
#include "sandbox/cxx_compile.hpp"

namespace kforge::kernels::host {

// What a family gives the host backend: its name, template and entry point, its problem (a shape and the operands
// of one call), how a call's arguments are laid out, its checks and its baselines.
template <class F>
concept HostFamily = requires(const jobs::Genome& genome, const jobs::EvalSettings& s, const typename F::Shape& shape,
                              typename F::Operands& ops, std::mt19937_64& rng, CandidateProcess& process,
                              const std::string& name) {
  { F::kName } -> std::convertible_to<const char*>;        // "gemm"
  { F::kEntryPoint } -> std::convertible_to<const char*>;  // the symbol a candidate exports
  { F::invoke } -> std::convertible_to<Invoke>;
  { F::render(genome) } -> std::same_as<std::string>;  // the template's source for a genome
  { F::main_shape(s) } -> std::same_as<typename F::Shape>;
  { F::flop(shape) } -> std::convertible_to<double>;
  { F::fresh_operands(shape, rng) } -> std::same_as<typename F::Operands>;
  F::refresh(ops, rng);  // new inputs, poisoned outputs
  F::stage(process, ops);
  F::collect(process, ops);
  { F::spot_check(ops, rng) } -> std::same_as<std::string>;
  F::check(process, shape, rng);  // one verification case: the family's outcome (status, errors, evidence)
  { F::verification_shapes(shape) } -> std::same_as<std::vector<typename F::Shape>>;
  { F::baseline(name) } -> std::convertible_to<void*>;  // throws std::invalid_argument for an unknown name
};

template <HostFamily F>
class HostFamilyBackend final : public Backend {
 public:
  std::string name() const override { return "host"; }
  std::string family() const override { return F::kName; }
  std::string render(const jobs::Candidate& c) const override {
    return c.source.empty() ? F::render(c.genome) : c.source;
  }

  CompileResult compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) override {
    return compile_shared_object(source, c, ctx, who().c_str());
  }

  void load(const CompileResult& compiled) override {
    process_ = std::make_unique<CandidateProcess>(compiled.artefact, F::kEntryPoint, F::invoke,
                                                  compiled.artefact.parent_path());
    process_->start_now();
  }

  VerifyResult verify(const EvalContext& ctx) override {
    CandidateProcess& candidate = process();
    const jobs::EvalSettings& s = settings_of(ctx, who().c_str());
    return verify_with_cases(
        F::verification_shapes(F::main_shape(s)), s, ctx.seed,
        [&](const typename F::Shape& shape, std::mt19937_64& rng) { return F::check(candidate, shape, rng); });
  }

  TimeResult time(const EvalContext& ctx) override {
    const jobs::EvalSettings& s = settings_of(ctx, who().c_str());
    std::mt19937_64 rng(ctx.seed ^ kTimingStream);
    typename F::Shape shape = F::main_shape(s);
    typename F::Operands ops = F::fresh_operands(shape, rng);
    TimeResult result = time_result(time_in(process(), s, rng, ops), F::flop(shape), kHostCeilingFlopPerS);
    return with_confinement_note(std::move(result), process().confinement());
  }

  bool times_on_shared_cores() const override { return true; }
  bool runs_candidate_code_apart() const override { return true; }

  std::vector<jobs::Baseline> time_baselines(const EvalContext& ctx) override {
    const jobs::EvalSettings& s = settings_of(ctx, who().c_str());
    std::vector<void*> kernels;
    for (const auto& n : s.baselines) kernels.push_back(F::baseline(n));  // every name checked first
    std::mt19937_64 rng(ctx.seed ^ kBaselineStream);
    typename F::Operands ops = F::fresh_operands(F::main_shape(s), rng);
    const std::string host = jobs::host_name();
    std::vector<jobs::Baseline> out;
    for (std::size_t n = 0; n < kernels.size(); ++n) {
      // In a process of its own, with the same fresh inputs, copies and clock as the candidates get.
      CandidateProcess baseline(kernels[n], F::invoke, ctx.scratch);
      out.push_back(baseline_from(s.baselines[n], time_in(baseline, s, rng, ops), host));
    }
    return out;
  }

 private:
  static std::string who() { return std::string("host ") + F::kName + " backend"; }

  CandidateProcess& process() const {
    if (!process_) throw std::logic_error(who() + ": verify()/time() called before a successful load()");
    return *process_;
  }

  static TimedSamples time_in(CandidateProcess& process, const jobs::EvalSettings& s, std::mt19937_64& rng,
                              typename F::Operands& ops) {
    return sample_calls(
        TimingPolicy::from(s), [&] { process.run(); },
        [&] {
          F::refresh(ops, rng);
          F::stage(process, ops);
        },
        [&] {
          F::collect(process, ops);
          return F::spot_check(ops, rng);
        });
  }

  std::unique_ptr<CandidateProcess> process_;
};

}  // namespace kforge::kernels::host
