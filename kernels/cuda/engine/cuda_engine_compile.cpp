// CudaEngineBackend, compile stage (in the evaluating rank; no GPU needed): the genome and the launches of every
// kernel at the largest step the engine is sized for checked first, then NVRTC through the compile cache, then
// every kernel's ptxas figures against its launch.
#include <algorithm>
#include <stdexcept>

#include "cuda_engine_backend.hpp"
#include "cuda_engine_launches.hpp"
#include "cuda_engine_pick.hpp"
#include "cuda_engine_source.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "kforge/kernels/cuda/cuda_engine.hpp"
#include "module_compile.hpp"
#include "resource_check.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

constexpr const char* kBackend = "cuda engine backend";

}  // namespace

const jobs::EvalSettings& CudaEngineBackend::settings_of(const EvalContext& ctx) {
  if (ctx.settings == nullptr) throw std::invalid_argument("cuda engine backend: EvalContext.settings is null");
  return *ctx.settings;
}

CudaEngineBackend::CudaEngineBackend(CudaBackendOptions options, DeviceFactory device)
    : options_(std::move(options)), make_device_(std::move(device)) {}

CudaEngineBackend::~CudaEngineBackend() = default;

}  // namespace kforge::kernels::cuda::engine

namespace kforge::kernels::cuda {

std::unique_ptr<Backend> make_cuda_engine_backend() { return std::make_unique<engine::CudaEngineBackend>(); }

}  // namespace kforge::kernels::cuda

namespace kforge::kernels::cuda::engine {

std::vector<std::string> CudaEngineBackend::layout_defines(const jobs::ModelSpec& model, const CudaEngineParams& p) {
  return {head_dim_option(model.head_dim), "-DKF_PREPACK=" + std::to_string(p.prepack ? 1 : 0),
          "-DKF_KV_BLOCK=" + std::to_string(p.kv_block)};
}

std::string CudaEngineBackend::render(const jobs::Candidate& c) const {
  kernels::engine::batch_policy_from_genome(c.genome);  // a bad batching value is the candidate's error
  if (!c.source.empty()) return c.source;
  return render_cuda_engine_source(cuda_engine_params(c.genome));
}

std::filesystem::path CudaEngineBackend::cache_root(const EvalContext& ctx) const {
  return options_.cache_dir.empty() ? default_cache_dir(ctx.scratch / "cuda-cache") : options_.cache_dir;
}

CompileResult CudaEngineBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  return compile_module(source, c, ctx, CompileIn::forked_child);
}

// The harness's module for the target (cuda_engine_pick.hpp), through the compile cache like the candidate's: its
// text is fixed, so every candidate after the first finds it there. A failure is the node's, never the candidate's.
std::optional<std::string> CudaEngineBackend::build_harness_module(const EvalContext& ctx, const jobs::EvalSettings& s,
                                                                   const ArchSpec& arch, CompileIn where) {
  const ModuleBuild built = build_module({pick_module_source(),
                                          "kforge-harness-pick",
                                          &arch,
                                          {},
                                          {{"entry", "harness module"}, {"family", "engine"}, {"target", arch.target}},
                                          cache_root(ctx),
                                          ctx.scratch,
                                          s.compile_timeout_s,
                                          where});
  if (!built.entry) return "the harness's own module (kf_pick) did not compile: " + built.failure;
  if (!built.entry->ok) return "the harness's own module (kf_pick) did not compile: " + built.entry->failure;
  image_.harness_cubin = built.entry->cubin();
  return std::nullopt;
}

CompileResult CudaEngineBackend::compile_module(const std::string& source, const jobs::Candidate& c,
                                                const EvalContext& ctx, CompileIn where) {
  const jobs::EvalSettings& s = settings_of(ctx);
  const jobs::EngineSpec& e = kernels::engine::engine_of(s, kBackend);
  const ArchSpec& arch = arch_for_target(ctx.target);
  CompileResult r;
  std::string note;
  const std::vector<std::string> flags = nvrtc_flags(s, c, note);
  r.log = note;
  if (auto why = cuda_engine_invalid_reason(c.genome))
    return rejected(r, jobs::Status::compile_error, "genome: " + *why);
  policy_ = kernels::engine::batch_policy_from_genome(c.genome);
  params_ = cuda_engine_params(c.genome);
  const std::vector<KernelLaunch> launches =
      engine_launches(e.model, params_, kernels::engine::engine_sizes_for(e, policy_));
  for (const KernelLaunch& k : launches)  // no compile needed to know it cannot run
    if (auto why = launch_rejection(k.launch, arch))
      return rejected(r, jobs::Status::resource_reject, std::string(k.kernel) + ": " + *why);

  image_ = {{}, {}, source, layout_defines(e.model, params_), &arch};
  if (auto why = build_harness_module(ctx, s, arch, where)) return rejected(r, jobs::Status::infra_error, *why);
  std::vector<std::string> options = image_.defines;
  options.insert(options.end(), flags.begin(), flags.end());
  const ModuleBuild built = build_module(
      {source,
       c.id.empty() ? jobs::candidate_id(c) : c.id,
       &arch,
       options,
       {{"genome", c.genome.to_text()}, {"entry", "engine module"}, {"family", "engine"}, {"target", arch.target}},
       cache_root(ctx),
       ctx.scratch,
       s.compile_timeout_s,
       where});
  if (!built.entry) {  // a timeout or a crash of NVRTC: not cached, the machine may be to blame
    r.compile_ms = built.compile_ms;
    return rejected(r, jobs::Status::compile_error, built.failure);
  }
  const CacheEntry& entry = *built.entry;
  r.compile_ms = entry.compile_ms;
  r.log += entry.log;
  if (built.cache_hit) r.log += "[kforge] compile cache hit: " + entry.dir.string() + "\n";
  r.artefact = image_.cubin = entry.cubin();
  r.ptx = entry.ptx();

  // Every kernel at its largest launch: the record keeps the largest figures of any kernel.
  const ResourceLimits limits{std::max(options_.max_spill_bytes, s.max_spill_bytes)};
  std::optional<std::string> over, missing;
  r.resources = {0, 0, 0};
  for (const KernelLaunch& k : launches) {
    const std::optional<KernelFigures> f = figures_for_entry(entry.log, k.kernel);
    if (!f) {
      if (!missing) missing = std::string(k.kernel);
      continue;
    }
    r.resources.registers = std::max(r.resources.registers, f->registers);
    r.resources.shared_bytes = std::max(r.resources.shared_bytes, f->static_shared_bytes);
    r.resources.spill_bytes = std::max(r.resources.spill_bytes, f->spill_store_bytes);
    r.log += "[kforge] " + figures_text(*f, k.launch, arch) + "\n";
    if (!over)
      if (auto why = compiled_rejection(*f, k.launch, arch, limits)) over = std::string(k.kernel) + ": " + *why;
  }
  if (!entry.ok)  // ptxas reports the figures of a kernel it then refuses
    return over ? rejected(r, jobs::Status::resource_reject, *over)
                : rejected(r, jobs::Status::compile_error, entry.failure);
  if (missing)
    return rejected(r, jobs::Status::compile_error,
                    "ptxas reported no figures for the kernel " + *missing +
                        ": every engine module defines extern \"C\" __global__ " + *missing +
                        " (docs/engines.md, \"The cuda engine\")");
  if (over) return rejected(r, jobs::Status::resource_reject, *over);
  if (auto why = module_rejection(entry, s.memory_limit_mb)) return rejected(r, why->status, why->why);
  r.ok = true;
  r.status = jobs::Status::ok;
  return r;
}

}  // namespace kforge::kernels::cuda::engine
