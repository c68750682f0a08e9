// YAML -> task manifest. Every error names the file and the key, since a person fixes it by hand.
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "kforge/jobs/manifest.hpp"

namespace kforge::jobs {
namespace {

struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads one required key of a map, with its dotted path for the error message.
class Reader {
 public:
  Reader(const YAML::Node& node, std::string where) : node_(node), where_(std::move(where)) {}

  YAML::Node child(const std::string& key) const {
    if (!node_.IsMap()) throw ManifestError(where_ + " is not a map");
    YAML::Node value = node_[key];
    if (!value.IsDefined()) throw ManifestError("missing key '" + path(key) + "'");
    return value;
  }

  template <class T>
  T get(const std::string& key) const {
    YAML::Node value = child(key);
    try {
      return value.as<T>();
    } catch (const YAML::Exception&) {
      throw ManifestError("key '" + path(key) + "' has a value of the wrong type (line " +
                          std::to_string(value.Mark().line + 1) + ")");
    }
  }

  bool has(const std::string& key) const { return node_.IsMap() && node_[key].IsDefined(); }

  Reader sub(const std::string& key) const { return Reader(child(key), path(key)); }
  std::string path(const std::string& key) const { return where_.empty() ? key : where_ + "." + key; }

 private:
  YAML::Node node_;
  std::string where_;
};

EngineSpec read_engine(const Reader& r) {
  EngineSpec e;
  const Reader m = r.sub("model");
  e.model.architecture = m.get<std::string>("architecture");
  for (auto [key, field] : {std::pair{"layers", &ModelSpec::layers},
                            {"hidden", &ModelSpec::hidden},
                            {"heads", &ModelSpec::heads},
                            {"kv_heads", &ModelSpec::kv_heads},
                            {"head_dim", &ModelSpec::head_dim},
                            {"mlp_hidden", &ModelSpec::mlp_hidden},
                            {"vocab", &ModelSpec::vocab},
                            {"attention_every", &ModelSpec::attention_every}})
    e.model.*field = m.get<std::int64_t>(key);
  e.model.tied_embeddings = m.get<bool>("tied_embeddings");
  e.model.rope_theta = m.get<double>("rope_theta");
  e.model.norm_eps = m.get<double>("norm_eps");
  e.model.weight_seed = m.get<std::uint64_t>("weight_seed");
  e.model.weights_file = m.get<std::string>("weights_file");
  if (m.has("path")) e.model.path = m.get<std::string>("path");
  if (m.has("qkv_bias")) e.model.qkv_bias = m.get<bool>("qkv_bias");  // absent in manifests written before folders
  if (m.has("qk_norm")) e.model.qk_norm = m.get<bool>("qk_norm");     // absent in manifests written before Qwen3
  if (m.has("rope_scaling_factor")) {  // Llama 3's RoPE scaling: written only when the model has it
    e.model.rope_scaling_factor = m.get<double>("rope_scaling_factor");
    e.model.rope_low_freq_factor = m.get<double>("rope_low_freq_factor");
    e.model.rope_high_freq_factor = m.get<double>("rope_high_freq_factor");
    e.model.rope_original_context = m.get<std::int64_t>("rope_original_context");
  }
  const Reader w = r.sub("workload");
  e.workload.seed = w.get<std::uint64_t>("seed");
  for (auto [key, field] : {std::pair{"requests", &WorkloadSpec::requests},
                            {"prompt_min", &WorkloadSpec::prompt_min},
                            {"prompt_max", &WorkloadSpec::prompt_max},
                            {"output_min", &WorkloadSpec::output_min},
                            {"output_max", &WorkloadSpec::output_max},
                            {"concurrency", &WorkloadSpec::concurrency}})
    e.workload.*field = w.get<std::int64_t>(key);
  e.workload.arrival_rate = w.get<double>("arrival_rate");
  e.workload.objective = w.get<std::string>("objective");
  e.workload.slo_p99_itl_ms = w.get<double>("slo_p99_itl_ms");
  e.workload.slo_p99_ttft_ms = w.get<double>("slo_p99_ttft_ms");
  if (e.empty()) throw ManifestError("key '" + m.path("architecture") + "' is empty");
  return e;
}

EvalSettings read_settings(const Reader& r) {
  EvalSettings s;
  s.wall_timeout_s = r.get<double>("wall_timeout_s");
  s.cpu_limit_s = r.get<double>("cpu_limit_s");
  s.memory_limit_mb = r.get<std::int64_t>("memory_limit_mb");
  s.file_limit_mb = r.get<std::int64_t>("file_limit_mb");
  s.compile_timeout_s = r.get<double>("compile_timeout_s");
  s.warmup = r.get<int>("warmup");
  s.min_repeats = r.get<int>("min_repeats");
  s.max_repeats = r.get<int>("max_repeats");
  s.target_spread = r.get<double>("target_spread");
  s.time_cap_s = r.get<double>("time_cap_s");
  s.problem = r.get<std::map<std::string, std::int64_t>>("problem");
  s.baselines = r.get<std::vector<std::string>>("baselines");
  s.compiler = r.get<std::string>("compiler");
  s.compile_flags = r.get<std::string>("compile_flags");
  s.compile_only = r.get<bool>("compile_only");
  // Optional (added later): manifests written before the replay backend existed have no such key.
  if (r.has("replay_cache")) s.replay_cache = r.get<std::string>("replay_cache");
  if (r.has("max_spill_bytes")) s.max_spill_bytes = r.get<std::int64_t>("max_spill_bytes");
  if (r.has("validation_cases")) s.validation_cases = r.get<std::vector<std::string>>("validation_cases");
  if (r.has("engine")) s.engine = read_engine(r.sub("engine"));  // engine campaigns only
  return s;
}

Candidate read_candidate(const Reader& r) {
  Candidate c;
  c.id = r.get<std::string>("id");
  c.family = r.get<std::string>("family");
  c.backend = r.get<std::string>("backend");
  try {
    c.genome = Genome::from_text(r.get<std::string>("genome"));
  } catch (const std::invalid_argument& e) {
    throw ManifestError("key '" + r.path("genome") + "': " + e.what());
  }
  c.compile_flags = r.get<std::string>("compile_flags");
  c.parents = r.get<std::vector<std::string>>("parents");
  c.op = r.get<std::string>("op");
  c.generation = r.get<int>("generation");
  c.island = r.get<int>("island");
  c.source = r.get<std::string>("source");
  return c;
}

TaskManifest read_document(const YAML::Node& root) {
  Reader r(root, "");
  TaskManifest m;
  m.campaign = r.get<std::string>("campaign");
  if (r.has("campaign_id")) m.campaign_id = r.get<std::string>("campaign_id");
  m.generation = r.get<int>("generation");
  m.island = r.get<int>("island");
  m.task = r.get<int>("task");
  m.target = r.get<std::string>("target");
  m.family = r.get<std::string>("family");
  m.backend = r.get<std::string>("backend");
  m.seed = r.get<std::uint64_t>("seed");
  m.shard_path = r.get<std::string>("shard_path");
  if (r.has("confirm_round")) m.confirm_round = r.get<int>("confirm_round");  // only confirmation tasks carry it
  m.settings = read_settings(r.sub("settings"));
  YAML::Node candidates = r.child("candidates");
  if (!candidates.IsSequence()) throw ManifestError("key 'candidates' is not a list");
  for (std::size_t i = 0; i < candidates.size(); ++i)
    m.candidates.push_back(read_candidate(Reader(candidates[i], "candidates[" + std::to_string(i) + "]")));
  return m;
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open task manifest (missing or unreadable)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TaskManifest read_manifest(const std::filesystem::path& path) {
  std::string text = read_whole_file(path);
  try {
    return read_document(YAML::Load(text));
  } catch (const ManifestError& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(path.string() + ": not valid YAML: " + e.what());
  }
}

}  // namespace kforge::jobs
