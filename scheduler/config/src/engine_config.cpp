// The sections of an engine campaign (campaign.family: engine): model (what is served), workload (the serving
// trace and its objective) and engine (kernels imported from earlier kernel campaigns). docs/campaign-schema.md,
// "Engine campaigns". Every inconsistency is refused here, before anything is written.
#include <algorithm>
#include <filesystem>
#include <string>

#include "campaign_sections.hpp"
#include "kforge/engine/model_folder.hpp"

namespace kforge::scheduler::config_detail {
namespace {

constexpr const char* kEngineFamily = "engine";
const std::vector<std::string> kArchitectures = {"llama", "kimi-linear"};

IntRule size_rule(std::int64_t min, std::int64_t max) { return int_between(min, max); }

std::int64_t required_size(const MapReader& model, const std::string& key, const IntRule& rule) {
  if (!model.has(key)) model.fail_missing(key, rule.allowed);
  return model.get_int64(key, 0, rule);
}

void check_attention_sizes(const MapReader& model, jobs::ModelSpec& m) {
  if (m.hidden % m.heads != 0)
    model.fail("heads", "hidden " + std::to_string(m.hidden) + " is not divisible by heads " + std::to_string(m.heads),
               "a divisor of model.hidden");
  m.kv_heads = model.get_int64("kv_heads", m.heads, size_rule(1, m.heads));
  if (m.heads % m.kv_heads != 0)
    model.fail("kv_heads",
               "kv_heads " + std::to_string(m.kv_heads) + " does not divide heads " + std::to_string(m.heads),
               "a divisor of model.heads (grouped-query attention)");
  IntRule head_dim = size_rule(2, 512);
  head_dim.allowed += ", even (RoPE rotates pairs)";
  m.head_dim = model.get_int64("head_dim", m.hidden / m.heads, head_dim);
  if (m.head_dim % 2 != 0)
    model.fail("head_dim", "head_dim " + std::to_string(m.head_dim) + " is odd", head_dim.allowed);
}

std::string read_weights_file(const MapReader& model, const CampaignConfig& campaign) {
  const std::string allowed = "a .safetensors or .h5 file, relative to the campaign file";
  if (!model.has("weights")) return "";
  std::filesystem::path file = model.get_string("weights", "", allowed);
  const std::string ext = file.extension().string();
  if (ext != ".safetensors" && ext != ".h5" && ext != ".hdf5")
    model.fail("weights", "'" + file.string() + "' is neither .safetensors nor .h5", allowed);
  if (file.is_relative()) file = std::filesystem::absolute(campaign.file).parent_path() / file;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) model.fail("weights", "no such file: " + file.string(), allowed);
  return file.lexically_normal().string();
}

// model.path: a Hugging Face model folder, whose config.json says everything the other model keys would.
jobs::ModelSpec read_model_folder(const MapReader& model, const CampaignConfig& campaign) {
  const std::string allowed =
      "a Hugging Face model folder (config.json and safetensors), relative to the campaign file";
  for (const auto& [key_node, value] : model.entries())
    if (const std::string key = key_node.Scalar(); key != "path")
      model.fail(key, "the model folder's config.json gives the model; " + key + " cannot be set beside model.path",
                 "model.path alone");
  std::filesystem::path dir = model.get_string("path", "", allowed);
  if (dir.empty()) model.fail("path", "empty", allowed);
  if (dir.is_relative()) dir = std::filesystem::absolute(campaign.file).parent_path() / dir;
  jobs::ModelSpec m;
  try {
    m = kernels::engine::model_from_folder(dir.lexically_normal());
  } catch (const kernels::engine::ModelFolderError& e) {
    model.fail("path", e.what(), allowed + "; docs/engines.md, \"Model folders\", lists what is supported");
  }
  if (m.qkv_bias && campaign.backend != "host")
    model.fail("path", "the " + campaign.backend + " engine does not add q/k/v biases yet (a Qwen2 model)",
               "a model without q/k/v biases for campaign.backend " + campaign.backend + ", or backend host");
  if (m.qk_norm && campaign.backend != "host")
    model.fail("path", "the " + campaign.backend + " engine does not normalise q and k per head yet (a Qwen3 model)",
               "a model without q/k norms for campaign.backend " + campaign.backend + ", or backend host");
  return m;
}

jobs::ModelSpec read_model(const MapReader& top, const CampaignConfig& campaign) {
  MapReader model =
      top.section("model", {"architecture", "layers", "hidden", "heads", "kv_heads", "head_dim", "mlp_hidden", "vocab",
                            "tied_embeddings", "attention_every", "rope_theta", "norm_eps", "seed", "weights", "path"});
  if (model.has("path")) return read_model_folder(model, campaign);
  jobs::ModelSpec m;
  const std::string arch_allowed = "one of: " + join(kArchitectures);
  m.architecture = model.require_string("architecture", arch_allowed);
  if (std::find(kArchitectures.begin(), kArchitectures.end(), m.architecture) == kArchitectures.end())
    model.fail("architecture", "unknown architecture '" + m.architecture + "'", arch_allowed);
  m.layers = required_size(model, "layers", size_rule(1, 256));
  m.hidden = required_size(model, "hidden", size_rule(8, 65536));
  m.heads = required_size(model, "heads", size_rule(1, 1024));
  check_attention_sizes(model, m);
  m.mlp_hidden = required_size(model, "mlp_hidden", size_rule(1, 262144));
  m.vocab = required_size(model, "vocab", size_rule(2, 1048576));
  m.tied_embeddings = model.get_bool("tied_embeddings", m.tied_embeddings);
  if (model.has("attention_every") && m.architecture != "kimi-linear")
    model.fail("attention_every", "only kimi-linear mixes KDA and attention layers", "absent for " + m.architecture);
  m.attention_every = model.get_int64("attention_every", m.attention_every, size_rule(1, 256));
  NumberRule theta = number_positive();
  m.rope_theta = model.get_number("rope_theta", m.rope_theta, theta);
  m.norm_eps = model.get_number("norm_eps", m.norm_eps, number_open(0, 1));
  m.weight_seed = model.get_uint64("seed", m.weight_seed);
  m.weights_file = read_weights_file(model, campaign);
  return m;
}

// "prompt_tokens: 64" or "prompt_tokens: {min: 16, max: 128}".
void read_length_range(const MapReader& workload, const std::string& key, std::int64_t& min, std::int64_t& max) {
  const IntRule rule = size_rule(1, 1 << 20);
  if (!workload.has(key)) workload.fail_missing(key, "a token count or {min: N, max: M}, each in [1, 1048576]");
  if (workload.value(key).IsScalar()) {
    min = max = workload.get_int64(key, 0, rule);
    return;
  }
  MapReader range = workload.section(key, {"min", "max"});
  min = required_size(range, "min", rule);
  max = required_size(range, "max", size_rule(min, 1 << 20));
}

void read_slo(const MapReader& workload, jobs::WorkloadSpec& w) {
  if (!workload.has("slo")) return;
  if (!workload.has("objective"))
    workload.fail_missing("objective", "an SLO constrains an objective: output_tokens_per_s");
  MapReader slo = workload.section("slo", {"p99_itl_ms", "p99_ttft_ms"});
  if (slo.entries().empty()) workload.fail("slo", "empty SLO", "a mapping with p99_itl_ms and/or p99_ttft_ms");
  w.slo_p99_itl_ms = slo.get_number("p99_itl_ms", 0.0, number_positive());
  w.slo_p99_ttft_ms = slo.get_number("p99_ttft_ms", 0.0, number_positive());
}

jobs::WorkloadSpec read_workload(const MapReader& top) {
  MapReader workload = top.section("workload", {"seed", "requests", "prompt_tokens", "output_tokens", "concurrency",
                                                "arrival_rate", "objective", "slo"});
  jobs::WorkloadSpec w;
  w.seed = workload.get_uint64("seed", w.seed);
  w.requests = required_size(workload, "requests", size_rule(1, 1 << 20));
  read_length_range(workload, "prompt_tokens", w.prompt_min, w.prompt_max);
  read_length_range(workload, "output_tokens", w.output_min, w.output_max);
  w.concurrency = workload.get_int64("concurrency", w.concurrency, size_rule(1, 4096));
  w.arrival_rate = workload.get_number("arrival_rate", w.arrival_rate, number_closed(0, 1e9));
  const std::string objective_allowed = "output_tokens_per_s";
  w.objective = workload.get_string("objective", w.objective, objective_allowed);
  if (w.objective != "output_tokens_per_s")
    workload.fail("objective", "unknown objective '" + w.objective + "'", objective_allowed);
  read_slo(workload, w);
  return w;
}

std::vector<std::filesystem::path> read_kernels_from(const MapReader& top, const CampaignConfig& campaign) {
  MapReader engine = top.section("engine", {"kernels_from"});
  const std::string allowed =
      "a list of campaign folders of earlier gemm and kda campaigns, relative to the campaign file";
  std::vector<std::filesystem::path> dirs;
  if (!engine.has("kernels_from")) return dirs;
  if (campaign.backend != "host")
    engine.fail("kernels_from",
                "imports host gemm and kda kernels into host engines; a " + campaign.backend +
                    " engine's kernels have parameters of their own (docs/engines.md, \"The cuda engine\")",
                "absent unless campaign.backend is host");
  const YAML::Node& list = engine.value("kernels_from");
  if (!list.IsSequence()) engine.fail("kernels_from", "expected a list, got " + describe_value(list), allowed);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string key = engine.key_path("kernels_from") + "[" + std::to_string(i) + "]";
    if (!list[i].IsScalar() || list[i].Scalar().empty())
      engine.fail_at(list[i], key, "expected a folder, got " + describe_value(list[i]), allowed);
    std::filesystem::path dir = list[i].Scalar();
    // Relative to the campaign file, like every path in it; kept as written for the archive's provenance.
    if (dir.is_relative()) dir = std::filesystem::absolute(campaign.file).parent_path() / dir;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(dir / "campaign.h5", ec))
      engine.fail_at(list[i], key, "no finished campaign in " + dir.lexically_normal().string() + " (no campaign.h5)",
                     allowed);
    dirs.push_back(dir.lexically_normal());
  }
  return dirs;
}

}  // namespace

void read_engine_sections(const MapReader& top, CampaignConfig& campaign) {
  if (campaign.family != kEngineFamily) {
    for (const char* section : {"model", "workload", "engine"})
      if (top.has(section))
        top.fail(section, "only an engine campaign serves a model", "absent unless campaign.family is engine");
    return;
  }
  if (!top.has("model")) top.fail_missing("model", "campaign.family engine needs the model it serves");
  if (!top.has("workload")) top.fail_missing("workload", "campaign.family engine needs the workload it is scored on");
  campaign.eval.engine.model = read_model(top, campaign);
  campaign.eval.engine.workload = read_workload(top);
  campaign.engine_kernels_from = read_kernels_from(top, campaign);
  MapReader engine = top.section("engine", {"kernels_from"});
  if (engine.has("kernels_from")) record_where(campaign.where, engine, "kernels_from");
  campaign.where["model"] = top.where("model");
  MapReader model = top.section("model", {});
  if (model.has("weights")) record_where(campaign.where, model, "weights");
  if (model.has("path")) record_where(campaign.where, model, "path");
  campaign.where["workload"] = top.where("workload");
}

}  // namespace kforge::scheduler::config_detail
