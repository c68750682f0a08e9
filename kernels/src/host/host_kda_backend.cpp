#include "host/host_kda_backend.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>

#include "host/cxx_compile.hpp"
#include "host/kda_baselines.hpp"
#include "host/kda_template.hpp"
#include "timing.hpp"
#include "verification.hpp"

namespace kforge::kernels::host {
std::string HostKdaBackend::render(const jobs::Candidate& c) const {
  if (!c.source.empty()) return c.source;
  return render_kda_source(kda_params_from_genome(c.genome));
}

CompileResult HostKdaBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  return compile_shared_object(source, c, ctx, "host kda backend");
}

void HostKdaBackend::load(const CompileResult& compiled) {
  kernel_.load(compiled.artefact, kda::kEntryPoint);
}

kda::KdaFn HostKdaBackend::loaded_kernel() const {
  return kernel_.get("host kda backend");
}

VerifyResult HostKdaBackend::verify(const EvalContext& ctx) {
  const kda::KdaFn kernel = loaded_kernel();
  const jobs::EvalSettings& s = settings_of(ctx, "host kda backend");
  return verify_with_cases(kda::verification_shapes(kda::main_shape(s)), s, ctx.seed,
                           [&](const kda::Shape& shape, std::mt19937_64& rng) {
                             return kda::check_kernel(kernel, shape, rng);
                           });
}

TimeResult HostKdaBackend::time(const EvalContext& ctx) {
  const kda::KdaFn kernel = loaded_kernel();
  const jobs::EvalSettings& s = settings_of(ctx, "host kda backend");
  std::mt19937_64 rng(ctx.seed ^ kTimingStream);
  kda::Inputs in = kda::random_inputs(kda::main_shape(s), rng);
  const TimedSamples timed = sample_calls(
      TimingPolicy::from(s), [&] { in.call(kernel); }, [&] { in.poison_o(); },
      [&] { return kda::spot_check(in, rng); });
  return time_result(timed, in.shape.flop(), kHostCeilingFlopPerS);
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
    const kda::KdaFn kernel = kernels[n];
    // Same policy and the same poisoning before each call as the candidates get.
    const TimedSamples timed = sample_calls(TimingPolicy::from(s), [&] { in.call(kernel); }, [&] { in.poison_o(); });
    out.push_back(baseline_from(s.baselines[n], timed, host));
  }
  return out;
}

}  // namespace kforge::kernels::host
