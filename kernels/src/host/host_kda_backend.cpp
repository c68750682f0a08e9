#include "host/host_kda_backend.hpp"

#include <stdexcept>

#include "host/cxx_compile.hpp"
#include "host/kda_baselines.hpp"
#include "host/kda_call.hpp"
#include "host/kda_template.hpp"
#include "timing.hpp"
#include "verification.hpp"

namespace kforge::kernels::host {
namespace {

// Every timed call gets fresh inputs (so a result remembered from an earlier call is wrong) and a poisoned o,
// copied in while the candidate process is stopped; only run() is under the clock; every result is spot-checked.
TimedSamples time_in_process(CandidateProcess& process, const jobs::EvalSettings& s, std::mt19937_64& rng,
                             kda::Inputs& in) {
  const auto args = kda_args(in.shape);
  return sample_calls(
      TimingPolicy::from(s), [&] { process.run(); },
      [&] {
        in = kda::random_inputs(in.shape, rng);
        process.stage(args, kda_buffers(in));
      },
      [&] {
        process.collect(kda_buffers(in));
        return kda::spot_check(in, rng);
      });
}

}  // namespace

std::string HostKdaBackend::render(const jobs::Candidate& c) const {
  if (!c.source.empty()) return c.source;
  return render_kda_source(kda_params_from_genome(c.genome));
}

CompileResult HostKdaBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  return compile_shared_object(source, c, ctx, "host kda backend");
}

void HostKdaBackend::load(const CompileResult& compiled) {
  process_ = std::make_unique<CandidateProcess>(compiled.artefact, kda::kEntryPoint, &invoke_kda,
                                                compiled.artefact.parent_path());
  process_->start_now();
}

CandidateProcess& HostKdaBackend::process() const {
  if (!process_) throw std::logic_error("host kda backend: verify()/time() called before a successful load()");
  return *process_;
}

VerifyResult HostKdaBackend::verify(const EvalContext& ctx) {
  CandidateProcess& candidate = process();
  const jobs::EvalSettings& s = settings_of(ctx, "host kda backend");
  const kda::Runner run = [&](kda::Inputs& in) { candidate.call(kda_args(in.shape), kda_buffers(in)); };
  return verify_with_cases(
      kda::verification_shapes(kda::main_shape(s)), s, ctx.seed,
      [&](const kda::Shape& shape, std::mt19937_64& rng) { return kda::check_kernel(run, shape, rng); });
}

TimeResult HostKdaBackend::time(const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx, "host kda backend");
  std::mt19937_64 rng(ctx.seed ^ kTimingStream);
  kda::Inputs in = kda::random_inputs(kda::main_shape(s), rng);
  TimeResult result = time_result(time_in_process(process(), s, rng, in), in.shape.flop(), kHostCeilingFlopPerS);
  return with_confinement_note(std::move(result), process().confinement());
}

std::vector<jobs::Baseline> HostKdaBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx, "host kda backend");
  std::vector<kda::KdaFn> kernels;
  for (const auto& name : s.baselines) kernels.push_back(kda_baseline(name));  // all names checked first
  std::mt19937_64 rng(ctx.seed ^ kBaselineStream);
  kda::Inputs in = kda::random_inputs(kda::main_shape(s), rng);
  const std::string host = jobs::host_name();
  std::vector<jobs::Baseline> out;
  for (std::size_t n = 0; n < kernels.size(); ++n) {
    // In a process of its own, with the same fresh inputs, copies and clock as the candidates get.
    CandidateProcess process(reinterpret_cast<void*>(kernels[n]), &invoke_kda, ctx.scratch);
    out.push_back(baseline_from(s.baselines[n], time_in_process(process, s, rng, in), host));
  }
  return out;
}

}  // namespace kforge::kernels::host
