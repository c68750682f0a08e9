// CudaBackend, run stage (in the candidate's child): load the cubin in a fresh context, verify on fresh random
// inputs with poisoned outputs and checked inputs, time with events and L2 flushes, time the baselines.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "checked_call.hpp"
#include "cublas_gemm.hpp"
#include "cuda_backend.hpp"
#include "gpu_timer.hpp"

namespace kforge::kernels::cuda {
namespace {

// Timing inputs differ from the verification inputs (same seed, another stream of numbers).
constexpr std::uint64_t kTimingStream = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t kBaselineStream = 0xc2b2ae3d27d4eb4full;
constexpr unsigned char kPoison = 0xFF;  // 0xFFFF / 0xFFFFFFFF: NaN in bf16 and fp32

const jobs::EvalSettings& settings_of(const EvalContext& ctx) {
  if (ctx.settings == nullptr) throw std::invalid_argument("cuda backend: EvalContext.settings is null");
  return *ctx.settings;
}

std::string read_binary(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cuda backend: cannot read the cubin " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int arch_number(const std::string& arch) {  // "sm_90a" -> 90
  return std::stoi(arch.substr(3));
}


}  // namespace

// A problem instance on the device: inputs uploaded, outputs allocated.
struct CudaBackend::CaseRun {
  std::vector<DeviceBuffer> inputs, outputs;
  std::vector<std::uint64_t> input_addresses, output_addresses;
  KernelArgs args;

  CaseRun(const DriverApi& api, const HostCase& hc) {
    for (const Bytes& in : hc.inputs) {
      inputs.emplace_back(api, in.size());
      inputs.back().upload(in);
      input_addresses.push_back(inputs.back().address());
    }
    for (std::size_t bytes : hc.output_bytes) {
      outputs.emplace_back(api, bytes);
      output_addresses.push_back(outputs.back().address());
    }
    args = hc.args(input_addresses, output_addresses);
  }
  void poison(const DriverApi& api, CUstream stream) {
    for (auto& out : outputs) KFORGE_CU_CHECK(api.cuMemsetD8Async(out.address(), kPoison, out.size(), stream));
  }
  std::vector<Bytes> download_outputs() const {
    std::vector<Bytes> out;
    for (const auto& o : outputs) out.push_back(o.download());
    return out;
  }
  std::string modified_input(const HostCase& hc) const {  // "" when every input is as uploaded
    for (std::size_t n = 0; n < inputs.size(); ++n)
      if (inputs[n].download() != hc.inputs[n]) return "the kernel modified input buffer " + std::to_string(n);
    return "";
  }
};

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
  kernel_ = std::make_unique<LoadedKernel>(s, read_binary(compiled.artefact), family_->entry_point());
}

CheckOutcome CudaBackend::run_case(const HostCase& hc, const LaunchConfig& l) {
  DeviceSession& s = session();
  CaseRun run(s.api(), hc);
  run.poison(s.api(), s.stream());
  kernel_->launch(l, run.args, s.stream());
  KFORGE_CU_CHECK(s.api().cuStreamSynchronize(s.stream()));  // a fault in the kernel surfaces here (crash)
  if (std::string why = run.modified_input(hc); !why.empty())
    return {jobs::Status::cheat_detected, jobs::kNaN, jobs::kNaN, why + " (" + problem_text(hc.problem) + ")"};
  return hc.check(run.download_outputs());
}

VerifyResult CudaBackend::verify(const EvalContext& ctx) {
  if (!kernel_) throw std::logic_error("cuda backend: verify() called before a successful load()");
  const Problem main = family_->problem(settings_of(ctx));
  std::mt19937_64 rng(ctx.seed);
  VerifyResult result;
  for (const Problem& p : family_->verification_problems(main)) {
    const CheckOutcome o = run_case(family_->make_case(p, rng, true), family_->launch(genome_, p));
    if (o.status != jobs::Status::ok) return {o.status, o.max_abs_error, o.max_rel_error, o.evidence, {}};
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
                                           const jobs::EvalSettings& settings, std::vector<Bytes>* last_outputs) {
  DeviceSession& s = session();
  CaseRun run(s.api(), hc);
  L2Flusher flusher(s);
  const std::vector<double> samples = time_launches(
      s, GpuTimingPolicy::from(settings),
      [&] {
        run.poison(s.api(), s.stream());
        flusher.enqueue(s.stream());
      },
      [&] { launch(run); });
  KFORGE_CU_CHECK(s.api().cuStreamSynchronize(s.stream()));
  if (last_outputs != nullptr) *last_outputs = run.download_outputs();
  return samples;
}

TimeResult CudaBackend::time(const EvalContext& ctx) {
  if (!kernel_) throw std::logic_error("cuda backend: time() called before a successful load()");
  const jobs::EvalSettings& settings = settings_of(ctx);
  const Problem main = family_->problem(settings);
  std::mt19937_64 rng(ctx.seed ^ kTimingStream);
  const HostCase hc = family_->make_case(main, rng, false);
  const LaunchConfig l = family_->launch(genome_, main);
  std::vector<Bytes> outputs;
  TimeResult result;
  result.samples_ms = time_case(hc, [&](CaseRun& run) { kernel_->launch(l, run.args, session().stream()); }, settings,
                                &outputs);
  if (const CheckOutcome o = hc.check(outputs); o.status != jobs::Status::ok) {
    result.status = jobs::Status::cheat_detected;  // right in verify(), wrong while being timed
    result.evidence = "after timing: " + o.evidence;
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
      if (!compiled.ok) throw std::runtime_error("cuda backend: the reference kernel does not compile:\n" + compiled.log);
      const LoadedKernel kernel(session(), read_binary(compiled.artefact), family_->entry_point());
      const LaunchConfig l = family_->launch(ref.genome, main);
      samples = time_case(hc, [&](CaseRun& run) { kernel.launch(l, run.args, session().stream()); }, settings, nullptr);
    } else {
      CublasGemm cublas;
      samples = time_case(
          hc,
          [&](CaseRun& run) {
            cublas.run(session().stream(), run.input_addresses[0], run.input_addresses[1], run.output_addresses[0],
                       static_cast<int>(main.at("M")), static_cast<int>(main.at("N")), static_cast<int>(main.at("K")));
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
