#include "compile_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace kforge::kernels::cuda {
namespace fs = std::filesystem;
namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_text(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw std::runtime_error("compile cache: cannot write " + path.string());
}

std::string one_line(std::string value) {
  for (char& c : value)
    if (c == '\n' || c == '\r') c = ' ';
  return value;
}

CacheEntry entry_from(const fs::path& dir, Meta meta) {
  CacheEntry e;
  e.dir = dir;
  e.log = read_text(dir / "compile.log");
  e.ok = meta["ok"] == "1";
  e.failure = meta["failure"];
  e.compile_ms = meta.count("compile_ms") ? std::stod(meta["compile_ms"]) : 0.0;
  e.meta = std::move(meta);
  return e;
}

}  // namespace

std::string CacheEntry::ptx() const { return read_text(dir / "candidate.ptx"); }

fs::path CompileCache::entry_dir(const CacheKey& key) const {
  if (key.candidate_id.empty() || key.candidate_id.find('/') != std::string::npos || key.arch.empty())
    throw std::invalid_argument("compile cache: bad key (candidate id \"" + key.candidate_id + "\", arch \"" +
                                key.arch + "\")");
  return root_ / key.arch / key.candidate_id;
}

Meta CompileCache::read_meta(const fs::path& dir) {
  Meta meta;
  std::istringstream in(read_text(dir / "meta.txt"));
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) meta[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return meta;
}

std::optional<CacheEntry> CompileCache::find(const CacheKey& key) const {
  const fs::path dir = entry_dir(key);
  Meta meta = read_meta(dir);
  if (meta["inputs_sha256"] != key.inputs_sha256 || meta["nvrtc"] != key.nvrtc_version) return std::nullopt;
  if (meta["ok"] == "1" && !fs::exists(dir / "candidate.cubin")) return std::nullopt;
  return entry_from(dir, std::move(meta));
}

CacheEntry CompileCache::store(const CacheKey& key, const NvrtcOutput& out, const Meta& extra) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = entry_dir(key);
  const fs::path tmp = dir.parent_path() /
                       (".tmp-" + key.candidate_id + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(tmp);
  Meta meta = extra;
  meta["candidate"] = key.candidate_id;
  meta["arch"] = key.arch;
  meta["inputs_sha256"] = key.inputs_sha256;
  meta["nvrtc"] = key.nvrtc_version;
  meta["ok"] = out.ok ? "1" : "0";
  meta["failure"] = out.failure;
  meta["compile_ms"] = std::to_string(out.compile_ms);
  std::string meta_text;
  for (const auto& [k, v] : meta) meta_text += k + "=" + one_line(v) + "\n";
  write_text(tmp / "compile.log", out.log);
  if (out.ok) {
    write_text(tmp / "candidate.cubin", out.cubin);
    write_text(tmp / "candidate.ptx", out.ptx);
  }
  write_text(tmp / "meta.txt", meta_text);  // last: an entry with meta.txt is complete

  std::error_code ec;
  fs::remove_all(dir, ec);  // a stale entry (other source hash or toolkit) or a concurrent writer's twin
  fs::rename(tmp, dir, ec);
  if (ec) {  // another rank renamed its (identical) entry in between: keep theirs
    fs::remove_all(tmp, ec);
    if (auto found = find(key)) return *found;
    throw std::runtime_error("compile cache: cannot install " + dir.string());
  }
  return entry_from(dir, std::move(meta));
}

fs::path default_cache_dir(const fs::path& fallback) {
  if (const char* dir = std::getenv("KFORGE_CUDA_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kforge" / "cuda";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kforge" / "cuda";
  return fallback;
}

std::string read_cubin(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cuda backend: cannot read the cubin " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace kforge::kernels::cuda
