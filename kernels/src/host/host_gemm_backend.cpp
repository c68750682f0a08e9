#include "host/host_gemm_backend.hpp"

#include <stdexcept>

#include "host/cxx_compile.hpp"
#include "host/gemm_baselines.hpp"
#include "host/gemm_call.hpp"
#include "host/gemm_template.hpp"
#include "timing.hpp"
#include "verification.hpp"

namespace kforge::kernels::host {
namespace {

constexpr int kSpotChecksPerSample = 16;

// Every timed call gets fresh A and B (so a result remembered from an earlier call is wrong) and a poisoned C,
// copied in while the candidate process is stopped; only run() is under the clock; every result is spot-checked.
TimedSamples time_in_process(CandidateProcess& process, const jobs::EvalSettings& s, std::mt19937_64& rng,
                             gemm::Operands& ops) {
  const auto args = gemm_args(ops.shape);
  return sample_calls(
      TimingPolicy::from(s), [&] { process.run(); },
      [&] {
        ops.refill(rng);
        ops.poison_c();
        process.stage(args, gemm_buffers(ops));
      },
      [&] {
        process.collect(gemm_buffers(ops));
        return gemm::spot_check(ops, rng, kSpotChecksPerSample);
      });
}

}  // namespace

std::string HostGemmBackend::render(const jobs::Candidate& c) const {
  if (!c.source.empty()) return c.source;
  return render_gemm_source(gemm_params_from_genome(c.genome));
}

CompileResult HostGemmBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  return compile_shared_object(source, c, ctx, "host gemm backend");
}

void HostGemmBackend::load(const CompileResult& compiled) {
  process_ = std::make_unique<CandidateProcess>(compiled.artefact, gemm::kEntryPoint, &invoke_gemm,
                                                compiled.artefact.parent_path());
  process_->start_now();
}

CandidateProcess& HostGemmBackend::process() const {
  if (!process_) throw std::logic_error("host gemm backend: verify()/time() called before a successful load()");
  return *process_;
}

VerifyResult HostGemmBackend::verify(const EvalContext& ctx) {
  CandidateProcess& candidate = process();
  const jobs::EvalSettings& s = settings_of(ctx, "host gemm backend");
  const gemm::Runner run = [&](gemm::Operands& ops) { candidate.call(gemm_args(ops.shape), gemm_buffers(ops)); };
  return verify_with_cases(
      gemm::verification_shapes(gemm::main_shape(s)), s, ctx.seed,
      [&](const gemm::Shape& shape, std::mt19937_64& rng) { return gemm::check_kernel(run, shape, rng); });
}

TimeResult HostGemmBackend::time(const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx, "host gemm backend");
  std::mt19937_64 rng(ctx.seed ^ kTimingStream);
  gemm::Operands ops = gemm::random_operands(gemm::main_shape(s), rng);
  TimeResult result = time_result(time_in_process(process(), s, rng, ops), ops.shape.flop(), kHostCeilingFlopPerS);
  return with_confinement_note(std::move(result), process().confinement());
}

std::vector<jobs::Baseline> HostGemmBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx, "host gemm backend");
  std::vector<gemm::GemmFn> kernels;
  for (const auto& name : s.baselines) kernels.push_back(gemm_baseline(name));  // all names checked first
  std::mt19937_64 rng(ctx.seed ^ kBaselineStream);
  gemm::Operands ops = gemm::random_operands(gemm::main_shape(s), rng);
  const std::string host = jobs::host_name();
  std::vector<jobs::Baseline> out;
  for (std::size_t n = 0; n < kernels.size(); ++n) {
    // In a process of its own, with the same fresh inputs, copies and clock as the candidates get.
    CandidateProcess process(reinterpret_cast<void*>(kernels[n]), &invoke_gemm, ctx.scratch);
    out.push_back(baseline_from(s.baselines[n], time_in_process(process, s, rng, ops), host));
  }
  return out;
}

}  // namespace kforge::kernels::host
