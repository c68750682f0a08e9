// CudaBackend, compile stage: launch checks, NVRTC through the compile cache, ptxas figures, resource checks.
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "cuda_backend.hpp"
#include "module_checks.hpp"
#include "ptx_assembler.hpp"

namespace kforge::kernels::cuda {
namespace {

// The campaign's compile_flags default to the host compiler's ("-O3 -march=native"); NVRTC rejects those, so
// they are dropped (and named in the log) instead of failing every candidate.
bool is_host_compiler_flag(const std::string& flag) {
  static const std::regex host(R"(^-O[0-3s]$|^-Ofast$|^-march=.*|^-mtune=.*|^-f(no-)?PIC$)");
  return std::regex_match(flag, host);
}

std::vector<std::string> nvrtc_flags(const jobs::EvalSettings& s, const jobs::Candidate& c, std::string& note) {
  std::vector<std::string> out;
  for (const std::string* text : {&s.compile_flags, &c.compile_flags}) {
    std::istringstream in(*text);
    for (std::string flag; in >> flag;) {
      if (is_host_compiler_flag(flag))
        note += (note.empty() ? "[kforge] ignored host-compiler flags:" : "") + (" " + flag);
      else
        out.push_back(flag);
    }
  }
  if (!note.empty()) note += "\n";
  return out;
}

std::string inputs_hash(const std::string& source, const std::vector<std::string>& options) {
  std::string all = source;
  for (const auto& o : options) all += '\0' + o;
  return jobs::sha256_hex(all);
}

CompileResult rejected(CompileResult r, jobs::Status status, const std::string& why) {
  r.ok = false;
  r.status = status;
  r.log += "[kforge] " + std::string(jobs::to_string(status)) + ": " + why + "\n";
  return r;
}

// The ELF header of a compiled cubin (what image_rejection() looks at).
std::string image_head(const std::filesystem::path& cubin) {
  std::ifstream in(cubin, std::ios::binary);
  std::string head(64, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

}  // namespace

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

  std::vector<std::string> all_options = fixed_nvrtc_options(arch.arch);
  all_options.insert(all_options.end(), extra.begin(), extra.end());
  const bool ptx = is_ptx_source(source);  // a PTX candidate: ptxas assembles it, everything after is the same
  const CacheKey key{c.id.empty() ? jobs::candidate_id(c) : c.id, arch.arch, inputs_hash(source, all_options),
                     ptx ? "ptxas " + ptxas_path() : nvrtc_version_text()};
  CompileCache cache(cache_root(ctx));
  std::optional<CacheEntry> entry = cache.find(key);
  last_cache_hit_ = entry.has_value();
  if (!entry) {
    const NvrtcRequest request{source, "candidate.cu", arch.arch, extra};
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(s.compile_timeout_s * 1000.0));
    const NvrtcOutput out = ptx ? assemble_ptx(source, arch.arch, ctx.scratch / "ptxas", timeout)
                            : where == CompileIn::forked_child
                                ? compile_isolated(request, ctx.scratch / "nvrtc", timeout)
                                : compile_with_nvrtc(request);
    if (!out.ok && out.log.empty()) {  // a timeout or a crash of NVRTC: not cached, the machine may be to blame
      r.compile_ms = out.compile_ms;
      return rejected(r, jobs::Status::compile_error, out.failure);
    }
    entry = cache.store(key, out,
                        {{"genome", c.genome.to_text()},
                         {"entry", family_->entry_point()},
                         {"family", family_->name()},
                         {"target", arch.target}});
  }
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
  if (auto why = image_rejection(image_head(r.artefact))) return rejected(r, jobs::Status::compile_error, *why);
  if (auto why = device_memory_rejection(static_device_bytes(entry->log), s.memory_limit_mb))
    return rejected(r, jobs::Status::resource_reject, *why);
  r.ok = true;
  r.status = jobs::Status::ok;
  return r;
}

std::unique_ptr<Backend> make_cuda_backend(std::string_view family, CudaBackendOptions options) {
  return std::make_unique<CudaBackend>(make_cuda_family(family), std::move(options));
}

}  // namespace kforge::kernels::cuda
