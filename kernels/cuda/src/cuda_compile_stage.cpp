// CudaBackend, compile stage: launch checks, NVRTC through the compile cache, ptxas figures, resource checks.
#include <algorithm>
#include <stdexcept>

#include "cuda_backend.hpp"
#include "module_compile.hpp"

namespace kforge::kernels::cuda {

CudaBackend::CudaBackend(std::unique_ptr<CudaFamily> family, CudaBackendOptions options)
    : family_(std::move(family)), options_(std::move(options)) {}

CudaBackend::~CudaBackend() = default;

std::string CudaBackend::render(const jobs::Candidate& c) const {
  return c.source.empty() ? family_->render(c.genome) : c.source;
}

std::filesystem::path CudaBackend::cache_root(const EvalContext& ctx) const {
  return options_.cache_dir.empty() ? default_cache_dir(ctx.scratch / "cuda-cache") : options_.cache_dir;
}

std::int64_t CudaBackend::spill_limit(const EvalContext& ctx) const {
  return std::max(options_.max_spill_bytes, ctx.settings ? ctx.settings->max_spill_bytes : std::int64_t{0});
}

CompileResult CudaBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  return compile_with(source, c, ctx, CompileIn::forked_child);
}

CompileResult CudaBackend::compile_with(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx,
                                        CompileIn where) {
  if (ctx.settings == nullptr) throw std::invalid_argument("cuda backend: EvalContext.settings is null");
  const jobs::EvalSettings& s = *ctx.settings;
  const ArchSpec& arch = arch_for_target(ctx.target);
  const Problem problem = family_->problem(s);  // a bad problem size is the campaign's fault: it throws
  last_cache_hit_ = false;

  CompileResult r;
  std::string note;
  const std::vector<std::string> extra = nvrtc_flags(s, c, note);
  r.log = note;
  if (auto why = family_->invalid_reason(c.genome)) return rejected(r, jobs::Status::compile_error, "genome: " + *why);
  const LaunchConfig launch = family_->launch(c.genome, problem);
  if (auto why = launch_rejection(launch, arch)) {  // no compile needed to know it cannot run
    r.resources.shared_bytes = launch.dynamic_shared_bytes;
    return rejected(r, jobs::Status::resource_reject, *why);
  }

  ModuleRequest request{source,
                        c.id.empty() ? jobs::candidate_id(c) : c.id,
                        &arch,
                        extra,
                        {{"genome", c.genome.to_text()},
                         {"entry", family_->entry_point()},
                         {"family", family_->name()},
                         {"target", arch.target}},
                        cache_root(ctx),
                        ctx.scratch,
                        s.compile_timeout_s,
                        where};
  const ModuleBuild built = build_module(request);
  last_cache_hit_ = built.cache_hit;
  if (!built.entry) {  // a timeout or a crash of NVRTC: not cached, the machine may be to blame
    r.compile_ms = built.compile_ms;
    return rejected(r, jobs::Status::compile_error, built.failure);
  }
  const CacheEntry* entry = &*built.entry;
  r.compile_ms = entry->compile_ms;
  r.log += entry->log;
  if (last_cache_hit_) r.log += "[kforge] compile cache hit: " + entry->dir.string() + "\n";
  r.artefact = entry->cubin();
  r.ptx = entry->ptx();  // evidence for the record, also of a kernel the checks below reject

  const std::optional<KernelFigures> figures = figures_for_entry(entry->log, family_->entry_point());
  if (figures) {
    r.resources = {figures->registers, figures->static_shared_bytes + launch.dynamic_shared_bytes,
                   figures->spill_store_bytes};
    r.log += "[kforge] " + figures_text(*figures, launch, arch) + "\n";
  }
  const std::optional<std::string> over =
      figures ? compiled_rejection(*figures, launch, arch, ResourceLimits{spill_limit(ctx)}) : std::nullopt;
  if (!entry->ok) {  // ptxas reports the figures of a kernel it then refuses (e.g. too much shared memory)
    return over ? rejected(r, jobs::Status::resource_reject, *over)
                : rejected(r, jobs::Status::compile_error, entry->failure);
  }
  if (!figures)
    return rejected(r, jobs::Status::compile_error,
                    "ptxas reported no figures for the entry function " + family_->entry_point() +
                        ": the source must define extern \"C\" __global__ void " + family_->entry_point() + "(...)");
  if (over) return rejected(r, jobs::Status::resource_reject, *over);
  if (auto why = module_rejection(*entry, s.memory_limit_mb)) return rejected(r, why->status, why->why);
  r.ok = true;
  r.status = jobs::Status::ok;
  return r;
}

std::unique_ptr<Backend> make_cuda_backend(std::string_view family, CudaBackendOptions options) {
  return std::make_unique<CudaBackend>(make_cuda_family(family), std::move(options));
}

}  // namespace kforge::kernels::cuda
