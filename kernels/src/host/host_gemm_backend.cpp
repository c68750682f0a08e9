#include "host/host_gemm_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "host/cxx_compile.hpp"
#include "host/gemm_baselines.hpp"
#include "host/gemm_template.hpp"
#include "timing.hpp"
#include "verification.hpp"

namespace kforge::kernels::host {
namespace {

constexpr int kSpotChecksPerSample = 16;

}  // namespace

std::string HostGemmBackend::render(const jobs::Candidate& c) const {
  if (!c.source.empty()) return c.source;
  return render_gemm_source(gemm_params_from_genome(c.genome));
}

CompileResult HostGemmBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  return compile_shared_object(source, c, ctx, "host gemm backend");
}

void HostGemmBackend::load(const CompileResult& compiled) {
  kernel_.load(compiled.artefact, gemm::kEntryPoint);
}

gemm::GemmFn HostGemmBackend::loaded_kernel() const {
  return kernel_.get("host gemm backend");
}

VerifyResult HostGemmBackend::verify(const EvalContext& ctx) {
  const gemm::GemmFn kernel = loaded_kernel();
  const jobs::EvalSettings& s = settings_of(ctx, "host gemm backend");
  return verify_with_cases(gemm::verification_shapes(gemm::main_shape(s)), s, ctx.seed,
                           [&](const gemm::Shape& shape, std::mt19937_64& rng) {
                             return gemm::check_kernel(kernel, shape, rng);
                           });
}

TimeResult HostGemmBackend::time(const EvalContext& ctx) {
  const gemm::GemmFn kernel = loaded_kernel();
  const jobs::EvalSettings& s = settings_of(ctx, "host gemm backend");
  std::mt19937_64 rng(ctx.seed ^ kTimingStream);
  gemm::Operands ops = gemm::random_operands(gemm::main_shape(s), rng);
  const TimedSamples timed = sample_calls(
      TimingPolicy::from(s), [&] { ops.call(kernel); }, [&] { ops.poison_c(); },
      [&] { return gemm::spot_check(ops, rng, kSpotChecksPerSample); });
  return time_result(timed, ops.shape.flop(), kHostCeilingFlopPerS);
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
    const gemm::GemmFn kernel = kernels[n];
    // Same policy and the same poisoning before each call as the candidates get.
    const TimedSamples timed = sample_calls(TimingPolicy::from(s), [&] { ops.call(kernel); }, [&] { ops.poison_c(); });
    out.push_back(baseline_from(s.baselines[n], timed, host));
  }
  return out;
}

}  // namespace kforge::kernels::host
