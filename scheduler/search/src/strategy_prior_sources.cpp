#include "kforge/scheduler/search/strategy_prior_sources.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/config/archive_view.hpp"

namespace kforge::scheduler {
namespace {

using json = nlohmann::json;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

// gzread reads plain files as they are, so one reader serves .json and .json.gz.
std::string read_maybe_gzipped(const std::filesystem::path& path) {
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error("search.prior: cannot open " + path.string());
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = gzread(file.get(), buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  int code = 0;
  gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END) throw std::runtime_error("search.prior: cannot read " + path.string());
  return text;
}

jobs::ParamValue param_value(const json& v) {
  if (v.is_number_integer()) return static_cast<std::int64_t>(v.get<std::int64_t>());
  if (v.is_number_float()) return v.get<double>();
  if (v.is_string()) return v.get<std::string>();
  throw std::runtime_error("a parameter value is neither a number nor a string");
}

}  // namespace

PriorObservations read_kernel_tuner_prior(const std::filesystem::path& cache) {
  PriorObservations out{cache.string(), {}};
  try {
    const json doc = json::parse(read_maybe_gzipped(cache));
    const json& keys = doc.at("tune_params_keys");
    for (const auto& [key, entry] : doc.at("cache").items()) {
      jobs::Genome g;
      for (const auto& name : keys) g.params[name.get<std::string>()] = param_value(entry.at(name.get<std::string>()));
      const json& time = entry.at("time");
      // A failure is stored as a text ("CompilationFailedConfig", "RuntimeFailedConfig") in place of a time.
      out.measured.emplace_back(std::move(g),
                                time.is_number() ? time.get<double>() : std::numeric_limits<double>::infinity());
    }
  } catch (const json::exception& e) {
    throw std::runtime_error("search.prior: " + cache.string() + " is not a Kernel Tuner cache: " + e.what());
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).starts_with("search.prior")) throw;
    throw std::runtime_error("search.prior: " + cache.string() + ": " + e.what());
  }
  return out;
}

std::vector<PriorObservations> read_campaign_prior(const std::filesystem::path& dir) {
  return campaign_prior_sets(ArchiveView::load(CampaignDir(dir)), dir.string());
}

std::vector<PriorObservations> campaign_prior_sets(const ArchiveView& archive, const std::string& label) {
  std::map<std::string, PriorObservations> by_target;
  for (const auto& generation : archive.generations()) {
    for (const auto& r : generation.records) {
      const jobs::Candidate* c = archive.candidate(r.candidate_id);
      if (c && !c->source.empty()) continue;
      PriorObservations& set = by_target[r.target];
      set.source = label + " (target " + r.target + (r.gpu_model.empty() ? "" : " on " + r.gpu_model) + ")";
      set.measured.emplace_back(jobs::Genome::from_text(r.params), jobs::fitness_ms(r));
    }
  }
  std::vector<PriorObservations> out;
  for (auto& [target, set] : by_target) out.push_back(std::move(set));
  return out;
}

namespace {

bool is_cache(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

// What a prior's content hangs on: a cache file, or a campaign folder's index (rewritten with every generation).
// Empty when it cannot be told (the read then says why, uncached).
std::string stamp_of(const std::filesystem::path& path) {
  struct stat st {};
  const std::filesystem::path file = is_cache(path) ? path : path / "campaign.h5";
  if (::stat(file.c_str(), &st) != 0) return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

std::vector<PriorObservations> read_one_prior(const std::filesystem::path& path) {
  if (is_cache(path)) return {read_kernel_tuner_prior(path)};
  return read_campaign_prior(path);
}

}  // namespace

std::vector<PriorObservations> read_search_prior(const std::vector<std::filesystem::path>& paths) {
  // A campaign asks for its priors again every generation (its strategy is rebuilt from the archive), for its
  // seeds, its model line and the worth lines at its end: each is read once per process while it is unchanged.
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, std::vector<PriorObservations>>> read;  // path -> stamp, sets
  std::vector<PriorObservations> out;
  for (const auto& path : paths) {
    const std::string stamp = stamp_of(path);
    std::vector<PriorObservations> sets;
    {
      const std::lock_guard lock(mutex);
      const auto it = read.find(path.string());
      if (!stamp.empty() && it != read.end() && it->second.first == stamp) sets = it->second.second;
    }
    if (sets.empty()) {
      sets = read_one_prior(path);
      const std::lock_guard lock(mutex);
      if (!stamp.empty()) read[path.string()] = {stamp, sets};
    }
    for (auto& set : sets) out.push_back(std::move(set));
  }
  return out;
}

}  // namespace kforge::scheduler
