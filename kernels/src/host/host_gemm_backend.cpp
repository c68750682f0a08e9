#include "host/host_gemm_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "detail/process.hpp"
#include "host/gemm_baselines.hpp"
#include "host/gemm_template.hpp"
#include "timing.hpp"

namespace kforge::kernels::host {
namespace {

constexpr std::size_t kLogTailBytes = 8 * 1024;
constexpr int kSpotChecksPerSample = 16;
// Seeds for the timing inputs differ from the verification inputs (same ctx.seed, different stream).
constexpr std::uint64_t kTimingStream = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t kBaselineStream = 0xc2b2ae3d27d4eb4full;

const jobs::EvalSettings& settings_of(const EvalContext& ctx) {
  if (ctx.settings == nullptr) throw std::invalid_argument("host gemm backend: EvalContext.settings is null");
  return *ctx.settings;
}

std::string tail(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "[... earlier output cut ...]\n" + text.substr(text.size() - bytes);
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("host gemm backend: cannot write " + path.string());
}

std::vector<std::string> compiler_command(const jobs::EvalSettings& s, const jobs::Candidate& c) {
  std::vector<std::string> argv = detail::split_on_whitespace(s.compiler);
  if (argv.empty()) throw std::invalid_argument("host gemm backend: evaluation.compiler is empty");
  for (const auto* flags : {&s.compile_flags, &c.compile_flags})
    for (auto& flag : detail::split_on_whitespace(*flags)) argv.push_back(std::move(flag));
  for (const char* fixed : {"-std=c++17", "-shared", "-fPIC", "-o", "candidate.so", "candidate.cpp"})
    argv.emplace_back(fixed);
  return argv;
}

std::string compile_failure_log(const detail::ProcessResult& run, double timeout_s) {
  std::string why;
  if (run.timed_out)
    why = "compiler timed out after " + std::to_string(static_cast<long long>(timeout_s)) + " s";
  else if (run.signal != 0)
    why = "compiler killed by signal " + std::to_string(run.signal);
  else
    why = "compiler exited with status " + std::to_string(run.exit_code);
  return run.output.empty() ? why : why + "\n" + tail(run.output, kLogTailBytes);
}

}  // namespace

std::string HostGemmBackend::render(const jobs::Candidate& c) const {
  if (!c.source.empty()) return c.source;
  return render_gemm_source(gemm_params_from_genome(c.genome));
}

CompileResult HostGemmBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx);
  std::filesystem::create_directories(ctx.scratch);
  write_file(ctx.scratch / "candidate.cpp", source);
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(s.compile_timeout_s * 1000.0));
  const detail::ProcessResult run = detail::run_process(compiler_command(s, c), ctx.scratch, timeout);

  CompileResult result;
  result.compile_ms = run.wall_ms;
  result.artefact = std::filesystem::absolute(ctx.scratch / "candidate.so");
  result.ok = run.succeeded() && std::filesystem::exists(result.artefact);
  result.status = result.ok ? jobs::Status::ok : jobs::Status::compile_error;
  result.log = result.ok ? tail(run.output, kLogTailBytes) : compile_failure_log(run, s.compile_timeout_s);
  return result;  // registers, shared memory and spills do not apply on the host: they stay -1
}

void HostGemmBackend::load(const CompileResult& compiled) {
  kernel_ = nullptr;
  library_ = SharedObject();  // unload the previous candidate before dlopen, which caches by path
  library_ = SharedObject(compiled.artefact);
  kernel_ = reinterpret_cast<gemm::GemmFn>(library_.symbol(gemm::kEntryPoint));
}

gemm::GemmFn HostGemmBackend::loaded_kernel() const {
  if (kernel_ == nullptr) throw std::logic_error("host gemm backend: verify()/time() called before a successful load()");
  return kernel_;
}

VerifyResult HostGemmBackend::verify(const EvalContext& ctx) {
  const gemm::GemmFn kernel = loaded_kernel();
  const gemm::Shape main = gemm::main_shape(settings_of(ctx));
  std::mt19937_64 rng(ctx.seed);
  VerifyResult result;
  const std::vector<gemm::Shape> shapes = gemm::verification_shapes(main);
  for (std::size_t n = 0; n < shapes.size(); ++n) {
    const gemm::CheckOutcome outcome = gemm::check_kernel(kernel, shapes[n], rng);
    if (outcome.status != jobs::Status::ok) {
      result.status = outcome.status;
      result.evidence = outcome.evidence;
      return result;
    }
    if (n == 0) {  // the error metrics are those of the main problem size
      result.max_abs_error = outcome.max_abs_error;
      result.max_rel_error = outcome.max_rel_error;
    }
  }
  result.status = jobs::Status::ok;
  return result;
}

TimeResult HostGemmBackend::time(const EvalContext& ctx) {
  const gemm::GemmFn kernel = loaded_kernel();
  const jobs::EvalSettings& s = settings_of(ctx);
  std::mt19937_64 rng(ctx.seed ^ kTimingStream);
  gemm::Operands ops = gemm::random_operands(gemm::main_shape(s), rng);
  const TimedSamples timed = sample_calls(
      TimingPolicy::from(s), [&] { ops.call(kernel); }, [&] { ops.poison_c(); },
      [&] { return gemm::spot_check(ops, rng, kSpotChecksPerSample); });

  TimeResult result;
  result.samples_ms = timed.samples_ms;
  if (!timed.failure.empty()) {
    result.status = jobs::Status::cheat_detected;  // right in verify(), wrong while being timed
    result.evidence = timed.failure;
    return result;
  }
  const double fastest = *std::min_element(timed.samples_ms.begin(), timed.samples_ms.end());
  if (auto evidence = beyond_physical_ceiling(ops.shape.flop(), fastest, kHostCeilingFlopPerS)) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = *evidence;
  }
  return result;
}

std::vector<jobs::Baseline> HostGemmBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& s = settings_of(ctx);
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
    jobs::Baseline b;
    b.name = s.baselines[n];
    b.time_median_ms = median_of(timed.samples_ms);
    b.time_min_ms = *std::min_element(timed.samples_ms.begin(), timed.samples_ms.end());
    b.sample_count = static_cast<std::int32_t>(timed.samples_ms.size());
    b.host = host;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace kforge::kernels::host
