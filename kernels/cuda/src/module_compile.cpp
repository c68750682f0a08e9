#include "module_compile.hpp"

#include <fstream>
#include <regex>
#include <sstream>

#include "kforge/jobs/candidate.hpp"
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

std::string inputs_hash(const std::string& source, const std::vector<std::string>& options) {
  std::string all = source;
  for (const auto& o : options) all += '\0' + o;
  return jobs::sha256_hex(all);
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

CompileResult rejected(CompileResult r, jobs::Status status, const std::string& why) {
  r.ok = false;
  r.status = status;
  r.log += "[kforge] " + std::string(jobs::to_string(status)) + ": " + why + "\n";
  return r;
}

ModuleBuild build_module(const ModuleRequest& q) {
  std::vector<std::string> all_options = fixed_nvrtc_options(q.arch->arch);
  all_options.insert(all_options.end(), q.options.begin(), q.options.end());
  const bool ptx = is_ptx_source(q.source);  // a PTX candidate: ptxas assembles it, everything after is the same
  const CacheKey key{q.candidate_id, q.arch->arch, inputs_hash(q.source, all_options),
                     ptx ? "ptxas " + ptxas_path() : nvrtc_version_text()};
  CompileCache cache(q.cache_root);
  ModuleBuild b;
  b.entry = cache.find(key);
  b.cache_hit = b.entry.has_value();
  if (b.entry) {
    b.compile_ms = b.entry->compile_ms;
    return b;
  }
  const NvrtcRequest request{q.source, "candidate.cu", q.arch->arch, q.options};
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(q.timeout_s * 1000.0));
  const NvrtcOutput out = ptx ? assemble_ptx(q.source, q.arch->arch, q.scratch / "ptxas", timeout)
                          : q.where == CompileIn::forked_child ? compile_isolated(request, q.scratch / "nvrtc", timeout)
                                                               : compile_with_nvrtc(request);
  b.compile_ms = out.compile_ms;
  if (!out.ok && out.log.empty()) {  // a timeout or a crash of the compiler
    b.failure = out.failure;
    return b;
  }
  b.entry = cache.store(key, out, q.meta);
  return b;
}

std::optional<ModuleRejection> module_rejection(const CacheEntry& entry, std::int64_t memory_limit_mb) {
  if (auto why = image_rejection(image_head(entry.cubin()))) return ModuleRejection{jobs::Status::compile_error, *why};
  if (auto why = device_memory_rejection(static_device_bytes(entry.log), memory_limit_mb))
    return ModuleRejection{jobs::Status::resource_reject, *why};
  return std::nullopt;
}

}  // namespace kforge::kernels::cuda
