#pragma once
// The compile of one CUDA module, shared by the kernel families' backend (cuda_compile_stage.cpp) and the cuda
// engine backend (kernels/cuda/engine/): the campaign's and candidate's flags (host-compiler flags dropped and
// named), NVRTC or ptxas through the compile cache, in a forked child under the compile timeout or in this
// process, and the verdicts every module gets once compiled (a loadable image, static device memory).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "arch.hpp"
#include "compile_cache.hpp"
#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::cuda {

// NVRTC in a forked child (the evaluating rank) or in this process (inside the sandboxed child, which may not
// fork: the run stage compiling its reference kernel).
enum class CompileIn { forked_child, this_process };

struct ModuleRequest {
  std::string source;
  std::string candidate_id;
  const ArchSpec* arch = nullptr;
  std::vector<std::string> options;  // after the fixed ones: harness defines, then campaign and candidate flags
  Meta meta;                         // stored with a new cache entry (genome, entry, family, target)
  std::filesystem::path cache_root;
  std::filesystem::path scratch;  // the compiler's work folders
  double timeout_s = 60.0;
  CompileIn where = CompileIn::forked_child;
};

struct ModuleBuild {
  std::optional<CacheEntry> entry;  // nullopt: the compiler timed out or crashed (not cached; the machine may be
  std::string failure;              // to blame), and `failure` says so
  double compile_ms = 0.0;
  bool cache_hit = false;
};

ModuleBuild build_module(const ModuleRequest& request);

// The campaign's and candidate's compile flags for NVRTC; host-compiler flags (-O3, -march=...) are dropped and
// named in `note` ("[kforge] ignored host-compiler flags: ...\n").
std::vector<std::string> nvrtc_flags(const jobs::EvalSettings& s, const jobs::Candidate& c, std::string& note);

// `r` as a failed compile with `status`, the reason appended to its log as "[kforge] STATUS: why".
CompileResult rejected(CompileResult r, jobs::Status status, const std::string& why);

// The verdicts on a compiled module as a whole: relocatable images (compile_error), static device memory over the
// campaign's memory limit (resource_reject). nullopt when both hold; else the status and why.
struct ModuleRejection {
  jobs::Status status;
  std::string why;
};
std::optional<ModuleRejection> module_rejection(const CacheEntry& entry, std::int64_t memory_limit_mb);

}  // namespace kforge::kernels::cuda
