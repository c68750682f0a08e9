// ReplaySpace::load: gunzip (zlib reads plain files too), parse the Kernel Tuner cache, index it by genome text.
#include "kforge/kernels/replay_space.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace kforge::kernels {
namespace {

using nlohmann::json;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};

std::string read_maybe_gzipped(const std::filesystem::path& path) {
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error("replay: cannot open " + path.string());
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const int n = gzread(file.get(), buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      throw std::runtime_error("replay: cannot decompress " + path.string() + ": " + gzerror(file.get(), &code));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

json parse_file(const std::filesystem::path& path) {
  try {
    return json::parse(read_maybe_gzipped(path));
  } catch (const json::exception& e) {
    throw std::runtime_error("replay: " + path.string() + " is not valid JSON: " + e.what());
  }
}

const json& need(const json& object, const std::string& key, const std::filesystem::path& path) {
  if (!object.is_object() || !object.contains(key)) {
    throw std::runtime_error("replay: " + path.string() + " has no key '" + key + "' (not a Kernel Tuner cache?)");
  }
  return object.at(key);
}

// JSON numbers and strings as genome values: integers stay integers so that the genome text is canonical.
jobs::ParamValue to_param_value(const json& v, const std::string& where) {
  if (v.is_number_integer()) return static_cast<std::int64_t>(v.get<std::int64_t>());
  if (v.is_number_float()) return v.get<double>();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return static_cast<std::int64_t>(v.get<bool>() ? 1 : 0);
  throw std::runtime_error("replay: " + where + " is neither a number nor a string");
}

ReplayOutcome failure_kind(const std::string& text) {
  return text == "CompilationFailedConfig" ? ReplayOutcome::compile_failed : ReplayOutcome::runtime_failed;
}

}  // namespace

// Reads the parts of a cache into a ReplaySpace (a friend, so that load() stays one short function).
class ReplaySpaceReader {
 public:
  ReplaySpaceReader(ReplaySpace& space, const std::filesystem::path& path) : s_(space), path_(path) {}

  void read_header(const json& doc) {
    s_.path_ = path_;
    if (doc.contains("device_name") && doc["device_name"].is_string()) s_.device_name_ = doc["device_name"];
    if (doc.contains("kernel_name") && doc["kernel_name"].is_string()) s_.kernel_name_ = doc["kernel_name"];
    const json& keys = need(doc, "tune_params_keys", path_);
    const json& lists = need(doc, "tune_params", path_);
    for (const json& key : keys) {
      ReplayParameter p;
      p.name = key.get<std::string>();
      for (const json& v : need(lists, p.name, path_)) {
        p.values.push_back(to_param_value(v, path_.string() + " tune_params." + p.name));
      }
      s_.parameters_.push_back(std::move(p));
    }
  }

  void read_entries(const json& cache) {
    s_.entries_.reserve(cache.size());
    for (const auto& [key, record] : cache.items()) {
      const std::string where = path_.string() + " cache[\"" + key + "\"]";
      ReplayEntry e;
      for (const ReplayParameter& p : s_.parameters_) {
        if (!record.contains(p.name)) throw std::runtime_error("replay: " + where + " lacks parameter " + p.name);
        e.genome.params[p.name] = to_param_value(record[p.name], where + "." + p.name);
      }
      read_time(record, where, e);
      s_.index_.emplace(e.genome.to_text(), s_.entries_.size());
      s_.entries_.push_back(std::move(e));
    }
  }

 private:
  static void read_time(const json& record, const std::string& where, ReplayEntry& e) {
    if (!record.contains("time")) throw std::runtime_error("replay: " + where + " has no 'time'");
    const json& time = record["time"];
    if (time.is_number()) {
      e.time_ms = time.get<double>();
      if (record.contains("times") && record["times"].is_array()) {
        for (const json& t : record["times"]) {
          if (t.is_number()) e.samples_ms.push_back(t.get<double>());
        }
      }
      return;
    }
    e.failure = time.is_string() ? time.get<std::string>() : time.dump();
    e.outcome = failure_kind(e.failure);
    e.time_ms = kInf;
  }

  ReplaySpace& s_;
  const std::filesystem::path& path_;
};

namespace {

// The space definition's value lists are Python lists in a string ("[16, 32]"); most parse as JSON.
void check_space_definition(const ReplaySpace& space, const json& def, const std::filesystem::path& path,
                            std::vector<std::string>& constraints) {
  const json& cs = need(def, "ConfigurationSpace", path);
  for (const json& p : need(cs, "TuningParameters", path)) {
    const std::string name = need(p, "Name", path).get<std::string>();
    const auto known = std::find_if(space.parameters().begin(), space.parameters().end(),
                                    [&](const ReplayParameter& q) { return q.name == name; });
    if (known == space.parameters().end()) {
      throw std::runtime_error("replay: " + path.string() + " defines parameter " + name + " that the cache " +
                               space.path().string() + " does not have");
    }
  }
  if (cs.contains("Conditions")) {
    for (const json& c : cs["Conditions"]) {
      if (c.contains("Expression") && c["Expression"].is_string()) constraints.push_back(c["Expression"]);
    }
  }
}

}  // namespace

ReplaySpace ReplaySpace::load(const std::filesystem::path& cache_path,
                              const std::optional<std::filesystem::path>& space_json_path) {
  ReplaySpace space;
  const json doc = parse_file(cache_path);
  ReplaySpaceReader reader(space, cache_path);
  reader.read_header(doc);
  reader.read_entries(need(doc, "cache", cache_path));
  if (space_json_path)
    check_space_definition(space, parse_file(*space_json_path), *space_json_path, space.constraints_);
  return space;
}

std::size_t ReplaySpace::failed_count() const {
  return static_cast<std::size_t>(std::count_if(
      entries_.begin(), entries_.end(), [](const ReplayEntry& e) { return e.outcome != ReplayOutcome::measured; }));
}

double ReplaySpace::best_time_ms() const {
  double best = kInf;
  for (const ReplayEntry& e : entries_) {
    if (e.outcome == ReplayOutcome::measured) best = std::min(best, e.time_ms);
  }
  return best;
}

ReplayLookup ReplaySpace::lookup(const jobs::Genome& g) const {
  const auto it = index_.find(g.to_text());
  if (it == index_.end()) return {ReplayOutcome::not_in_space, kInf, nullptr};
  const ReplayEntry& e = entries_[it->second];
  return {e.outcome, e.time_ms, &e};
}

const char* to_string(ReplayOutcome o) {
  switch (o) {
    case ReplayOutcome::measured:
      return "measured";
    case ReplayOutcome::compile_failed:
      return "compile_failed";
    case ReplayOutcome::runtime_failed:
      return "runtime_failed";
    case ReplayOutcome::not_in_space:
      return "not_in_space";
  }
  return "unknown";
}

}  // namespace kforge::kernels
