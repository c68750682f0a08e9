#include "engine/host_engine_backend.hpp"

#include <algorithm>
#include <stdexcept>

#include "engine/engine_call.hpp"
#include "engine/engine_template.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/kernels/timing.hpp"
#include "sandbox/cxx_compile.hpp"

namespace kforge::kernels::engine {
namespace {

constexpr const char* kBackend = "host engine backend";

const jobs::EngineSpec& engine_of(const jobs::EvalSettings& s) { return engine::engine_of(s, kBackend); }

}  // namespace

std::string HostEngineBackend::render(const jobs::Candidate& c) const {
  batch_policy_from_genome(c.genome);  // a bad batching or precision value is the candidate's error, before compiling
  weights_from_genome(c.genome);
  if (!c.source.empty()) return c.source;
  return render_engine_source(engine_params_from_genome(c.genome));
}

CompileResult HostEngineBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  policy_ = batch_policy_from_genome(c.genome);
  precision_ = weights_from_genome(c.genome);
  return host::compile_shared_object(source, c, ctx, kBackend);
}

void HostEngineBackend::load(const CompileResult& compiled) {
  artefact_ = compiled.artefact;
  process_ = std::make_unique<host::CandidateProcess>(compiled.artefact, kEntryPoint, &invoke_engine,
                                                      compiled.artefact.parent_path());
  process_->start_now();
  initialised_ = false;
  peak_mib_ = 0.0;
}

host::CandidateProcess& HostEngineBackend::process() const {
  if (!process_) throw std::logic_error("host engine backend: verify()/time() called before a successful load()");
  return *process_;
}

void HostEngineBackend::ensure_initialised(const EvalContext& ctx) {
  if (initialised_) return;
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  // The engine and the reference serve the model rounded to the precision the candidate declares (one load per
  // backend; a later candidate of another precision rounds a fresh copy).
  if (!weights_ || weights_->precision != precision_) {
    reference_.reset();
    weights_ = load_weights(engine_of(s).model);
    round_weights(*weights_, precision_);
  }
  if (!reference_) reference_.emplace(engine_of(s).model, *weights_, 1, 1);  // teacher_forced only: no slots used
  init_engine(process(), engine_of(s).model, *weights_, engine_sizes_for(engine_of(s), policy_));
  initialised_ = true;
}

void HostEngineBackend::start_fresh_process(const EvalContext& ctx, int run) {
  if (process_) peak_mib_ = std::max(peak_mib_, process_->peak_resident_mib());
  process_.reset();
  std::error_code ignored;  // a folder the engine made undeletable stays; the scratch folder goes with the task
  if (!run_folder_.empty()) std::filesystem::remove_all(run_folder_, ignored);
  run_folder_ = artefact_.parent_path() / ("run-" + std::to_string(run));
  process_ = engine_process_in(artefact_, run_folder_);
  const jobs::EngineSpec& e = engine_of(host::settings_of(ctx, kBackend));
  init_engine(*process_, e.model, *weights_, engine_sizes_for(e, policy_));
}

VerifyResult HostEngineBackend::verify(const EvalContext& ctx) {
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  ensure_initialised(ctx);
  const jobs::EngineSpec& e = engine_of(s);
  return verify_served_engine(s, e, policy_, *weights_, *reference_, ctx.seed, step_through(process(), e.model.vocab),
                              &envelope_ms_);
}

TimeResult HostEngineBackend::time(const EvalContext& ctx) {
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  ensure_initialised(ctx);
  const jobs::EngineSpec& e = engine_of(s);
  // The node's bandwidth at the weights' working set, under the same timing lock as the runs (physical_floor.hpp),
  // before and after them: the larger, so that a measurement disturbed by other work cannot raise the floor.
  const auto bandwidth_now = [&] {
    return measure_read_bandwidth(static_cast<std::size_t>(weight_bytes_per_step(e.model, precision_)), usable_cpus());
  };
  double bandwidth = bandwidth_now();
  int run = 0;
  const FreshEngine fresh = [&] {
    start_fresh_process(ctx, ++run);
    return step_through(*process_, e.model.vocab);
  };
  const ServedRuns served = serve_repeatedly(s, e, policy_, fresh, &*reference_);
  peak_mib_ = std::max(peak_mib_, process().peak_resident_mib());
  bandwidth = std::max(bandwidth, bandwidth_now());
  const VerdictContext verdict{peak_mib_, kHostCeilingFlopPerS, "", bandwidth, envelope_ms_};
  return host::with_confinement_note(judge_served(served, e, *weights_, verdict), process().confinement());
}

std::vector<jobs::Baseline> HostEngineBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  const jobs::EngineSpec& e = engine_of(s);
  for (const auto& name : s.baselines) {
    if (name != "reference")
      throw std::invalid_argument("host engine backend: unknown baseline '" + name + "' (known: reference)");
  }
  std::vector<jobs::Baseline> out;
  if (s.baselines.empty()) return out;
  Weights weights = load_weights(e.model);
  const std::string host = jobs::host_name();
  for (const auto& name : s.baselines) {
    // The double reference engine behind the same ABI, in a process of its own, on the same trace and clock.
    host::CandidateProcess process(reinterpret_cast<void*>(&reference_engine_entry), &invoke_engine, ctx.scratch);
    init_engine(process, e.model, weights, engine_sizes_for(e, baseline_policy()));
    // kforge's own engine: one process serves every run (each run's first step in a slot starts it afresh).
    const ServedRuns served =
        serve_repeatedly(s, e, baseline_policy(), [&] { return step_through(process, e.model.vocab); });
    if (!served.failure.empty()) throw std::runtime_error("the reference baseline failed: " + served.failure);
    out.push_back(baseline_from(name, TimedSamples{served.samples_ms, ""}, host));
  }
  return out;
}

}  // namespace kforge::kernels::engine
