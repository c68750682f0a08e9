#pragma once
// The compile cache: one directory per (candidate id, arch) holding the cubin, the PTX, NVRTC's log and the
// figures (meta.txt, "key=value" lines). Same id on the same arch is the same experiment, so a second compile
// is a lookup. An entry also records a hash of the exact source and options and the NVRTC version; a mismatch
// (a changed template, a new toolkit) is a miss and the entry is replaced. Entries appear atomically (written
// under a temporary name, then renamed), so ranks sharing the directory never read half an entry.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "nvrtc_compiler.hpp"

namespace kforge::kernels::cuda {

struct CacheKey {
  std::string candidate_id;
  std::string arch;
  std::string inputs_sha256;  // of the source text and every NVRTC option
  std::string nvrtc_version;
};

using Meta = std::map<std::string, std::string>;

struct CacheEntry {
  std::filesystem::path dir;
  Meta meta;
  std::string log;
  bool ok = false;          // NVRTC produced a cubin
  std::string failure;      // NVRTC's failure line when !ok
  double compile_ms = 0.0;  // of the compile that made the entry
  std::filesystem::path cubin() const { return dir / "candidate.cubin"; }
  std::string ptx() const;  // the PTX of the entry ("" when the compile made none)
};

class CompileCache {
 public:
  explicit CompileCache(std::filesystem::path root) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }

  std::optional<CacheEntry> find(const CacheKey& key) const;
  // Stores a finished compile (success or compile error) with `extra` meta and returns the entry as stored.
  CacheEntry store(const CacheKey& key, const NvrtcOutput& out, const Meta& extra);

  static Meta read_meta(const std::filesystem::path& dir);  // {} when the file is missing

 private:
  std::filesystem::path entry_dir(const CacheKey& key) const;
  std::filesystem::path root_;
};

// The bytes of a cubin (cuModuleLoadData's image); throws std::runtime_error naming the file when unreadable.
std::string read_cubin(const std::filesystem::path& path);

// KFORGE_CUDA_CACHE when set, else $XDG_CACHE_HOME/kforge/cuda, else $HOME/.cache/kforge/cuda, else `fallback`.
std::filesystem::path default_cache_dir(const std::filesystem::path& fallback);

}  // namespace kforge::kernels::cuda
