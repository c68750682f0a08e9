// CudaBackend, run stage (in the candidate's child): load the cubin in a fresh context, verify on fresh random
// inputs with poisoned outputs and checked inputs, time with events and L2 flushes, time the baselines.
#include <algorithm>
#include <stdexcept>

#include "case_run.hpp"
#include "checked_call.hpp"
#include "cublas_gemm.hpp"
#include "cuda_backend.hpp"
#include "gpu_timer.hpp"

namespace kforge::kernels::cuda {
namespace {

// Timing inputs differ from the verification inputs (same seed, another stream of numbers).
constexpr std::uint64_t kTimingStream = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t kBaselineStream = 0xc2b2ae3d27d4eb4full;

const jobs::EvalSettings& settings_of(const EvalContext& ctx) {
  if (ctx.settings == nullptr) throw std::invalid_argument("cuda backend: EvalContext.settings is null");
  return *ctx.settings;
}

int arch_number(const std::string& arch) {  // "sm_90a" -> 90
  return std::stoi(arch.substr(3));
}

// A launch that fails (illegal address, __trap(), too many resources) leaves the context unusable: it is thrown,
// so the sandbox records the child as crashed with this text, the driver's error name and all, as evidence.
[[noreturn]] void throw_kernel_fault(const CudaCallError& e, const std::string& when, const Problem& p,
                                     const LaunchConfig& l) {
  throw std::runtime_error("the kernel failed " + when + " on " + problem_text(p) + " (" + l.text() + "): " + e.what());
}

}  // namespace

DeviceSession& CudaBackend::session() {
  if (!session_) session_ = std::make_unique<DeviceSession>();  // throws NoCudaDevice without a GPU
  return *session_;
}

void CudaBackend::load(const CompileResult& compiled) {
  kernel_.reset();
  const Meta meta = CompileCache::read_meta(compiled.artefact.parent_path());
  if (meta.count("genome") == 0 || meta.count("arch") == 0)
    throw std::runtime_error("cuda backend: " + compiled.artefact.parent_path().string() +
                             "/meta.txt lacks the genome or arch of the compiled candidate");
  genome_ = jobs::Genome::from_text(meta.at("genome"));
  arch_ = &arch_for_target(meta.at("arch"));
  DeviceSession& s = session();
  const int cc = s.compute_capability();
  if (cc != arch_number(arch_->arch))
    throw std::runtime_error("cuda backend: the cubin is for " + arch_->arch + " but this GPU (" + s.name() +
                             ") has compute capability " + std::to_string(cc / 10) + "." + std::to_string(cc % 10) +
                             ": the island's target does not match the node's GPUs");
  kernel_ = std::make_unique<LoadedKernel>(s, read_cubin(compiled.artefact), family_->entry_point());
}

CheckOutcome CudaBackend::run_case(const HostCase& hc, const LaunchConfig& l) {
  DeviceSession& s = session();
  CaseRun run(s.api(), hc);
  run.poison(s.stream());
  CaseReadback back;
  try {
    kernel_->launch(l, run.args(), s.stream());
    back = run.read_back(s.stream());  // right behind the launch, on the harness stream
  } catch (const CudaCallError& e) {
    throw_kernel_fault(e, "during verification", hc.problem, l);
  }
  const std::string where = " (" + problem_text(hc.problem) + ")";
  if (!back.outside_writes.empty())
    return {jobs::Status::wrong_result, jobs::kNaN, jobs::kNaN, back.outside_writes + where};
  if (!back.modified_inputs.empty())
    return {jobs::Status::cheat_detected, jobs::kNaN, jobs::kNaN, back.modified_inputs + where};
  return hc.check(back.outputs);
}

VerifyResult CudaBackend::verify(const EvalContext& ctx) {
  if (!kernel_) throw std::logic_error("cuda backend: verify() called before a successful load()");
  const Problem main = family_->problem(settings_of(ctx));
  std::mt19937_64 rng(ctx.seed);
  VerifyResult result;
  for (const VerificationCase& c : verification_cases(*family_, main, settings_of(ctx).validation_cases, ctx.seed)) {
    std::mt19937_64 case_rng(c.seed);
    const CheckOutcome o = run_case(family_->make_case(c.problem, case_rng, true), family_->launch(genome_, c.problem));
    if (o.status == jobs::Status::ok) continue;
    // The failing case goes to the campaign's validation set (the scheduler stores failed_case) and is checked
    // for every later candidate with the same inputs; an input class is named so a person sees which extreme the
    // kernel did not survive.
    const InputClass inputs = input_class(c.problem);
    std::string evidence = o.evidence;
    if (inputs != InputClass::ordinary) evidence += " with " + input_class_name(inputs) + " inputs";
    if (c.from_validation_set) evidence += "\ncaught by the campaign's validation set: " + case_text_of(c);
    return {o.status, o.max_abs_error, o.max_rel_error, evidence, case_text_of(c)};
  }
  // The main problem twice, on different inputs: an output cached from the first call fails the second.
  for (int round = 0; round < 2; ++round) {
    const CheckOutcome o = run_case(family_->make_case(main, rng, false), family_->launch(genome_, main));
    if (o.status != jobs::Status::ok) return {o.status, o.max_abs_error, o.max_rel_error, o.evidence, {}};
    result.max_abs_error = std::max(round ? result.max_abs_error : 0.0, o.max_abs_error);
    result.max_rel_error = std::max(round ? result.max_rel_error : 0.0, o.max_rel_error);
  }
  result.status = jobs::Status::ok;
  return result;
}

std::vector<double> CudaBackend::time_case(const HostCase& hc, const std::function<void(CaseRun&)>& launch,
                                           const jobs::EvalSettings& settings, CaseReadback* last) {
  DeviceSession& s = session();
  CaseRun run(s.api(), hc);
  L2Flusher flusher(s);
  const std::vector<double> samples = time_launches(
      s, GpuTimingPolicy::from(settings),
      [&] {
        run.poison(s.stream());
        flusher.enqueue(s.stream());
      },
      [&] { launch(run); });
  if (last != nullptr)
    *last = run.read_back(s.stream());  // the last timed launch's result, as it completed
  else
    KFORGE_CU_CHECK(s.api().cuStreamSynchronize(s.stream()));
  return samples;
}

TimeResult CudaBackend::time(const EvalContext& ctx) {
  if (!kernel_) throw std::logic_error("cuda backend: time() called before a successful load()");
  const jobs::EvalSettings& settings = settings_of(ctx);
  const Problem main = family_->problem(settings);
  std::mt19937_64 rng(ctx.seed ^ kTimingStream);
  const HostCase hc = family_->make_case(main, rng, false);
  const LaunchConfig l = family_->launch(genome_, main);
  CaseReadback back;
  TimeResult result;
  try {
    result.samples_ms = time_case(
        hc, [&](CaseRun& run) { kernel_->launch(l, run.args(), session().stream()); }, settings, &back);
  } catch (const CudaCallError& e) {
    throw_kernel_fault(e, "while being timed", main, l);
  }
  // Right in verify(), wrong while being timed: the result of the last timed launch must hold up too.
  std::string wrong = !back.outside_writes.empty() ? back.outside_writes : back.modified_inputs;
  if (wrong.empty())
    if (const CheckOutcome o = hc.check(back.outputs); o.status != jobs::Status::ok) wrong = o.evidence;
  if (!wrong.empty()) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = "after timing: " + wrong;
    return result;
  }
  const double fastest_s = *std::min_element(result.samples_ms.begin(), result.samples_ms.end()) / 1e3;
  const double flop_rate = family_->flop(main) / fastest_s, byte_rate = family_->bytes(main) / fastest_s;
  if (flop_rate > arch_->peak_bf16_flop_per_s || byte_rate > arch_->peak_dram_bytes_per_s) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = "faster than physically possible on " + arch_->target + ": " + std::to_string(flop_rate / 1e12) +
                      " TFLOP/s, " + std::to_string(byte_rate / 1e12) + " TB/s (ceilings " +
                      std::to_string(arch_->peak_bf16_flop_per_s / 1e12) + " TFLOP/s, " +
                      std::to_string(arch_->peak_dram_bytes_per_s / 1e12) + " TB/s)";
  }
  return result;
}

std::vector<jobs::Baseline> CudaBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& settings = settings_of(ctx);
  for (const auto& name : settings.baselines)
    if (name != "reference" && !(name == "cublas" && family_->name() == "gemm"))
      throw std::invalid_argument("cuda backend: unknown baseline \"" + name + "\" for " + family_->name() +
                                  " (known: reference" + (family_->name() == "gemm" ? ", cublas)" : ")"));
  const Problem main = family_->problem(settings);
  std::mt19937_64 rng(ctx.seed ^ kBaselineStream);
  const HostCase hc = family_->make_case(main, rng, false);
  std::vector<jobs::Baseline> out;
  for (const auto& name : settings.baselines) {
    std::vector<double> samples;
    if (name == "reference") {  // the family's default genome, compiled like any candidate
      jobs::Candidate ref;
      ref.family = family_->name();
      ref.backend = "cuda";
      ref.genome = family_->default_genome();
      jobs::assign_id(ref);
      const CompileResult compiled = compile_with(render(ref), ref, ctx, CompileIn::this_process);
      if (!compiled.ok)
        throw std::runtime_error("cuda backend: the reference kernel does not compile:\n" + compiled.log);
      const LoadedKernel kernel(session(), read_cubin(compiled.artefact), family_->entry_point());
      const LaunchConfig l = family_->launch(ref.genome, main);
      samples = time_case(
          hc, [&](CaseRun& run) { kernel.launch(l, run.args(), session().stream()); }, settings, nullptr);
    } else {
      CublasGemm cublas;
      samples = time_case(
          hc,
          [&](CaseRun& run) {
            cublas.run(session().stream(), run.input_addresses()[0], run.input_addresses()[1],
                       run.output_addresses()[0], static_cast<int>(main.at("M")), static_cast<int>(main.at("N")),
                       static_cast<int>(main.at("K")));
          },
          settings, nullptr);
    }
    jobs::Baseline b;
    b.name = name;
    b.time_median_ms = median_ms(samples);
    b.time_min_ms = *std::min_element(samples.begin(), samples.end());
    b.sample_count = static_cast<std::int32_t>(samples.size());
    b.host = jobs::host_name();
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace kforge::kernels::cuda
