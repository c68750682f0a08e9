#include "kforge/engine/model_folder.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kforge::kernels::engine {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ModelFolderError(file.string() + ": cannot read it");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// config.json, and where in it each top-level key is written (the first "key": in the text), for the errors.
class Config {
 public:
  explicit Config(const fs::path& dir) : file_(dir / "config.json"), text_(read_text(file_)) {
    try {
      json_ = json::parse(text_);
    } catch (const json::parse_error& e) {
      throw ModelFolderError(file_.string() + ":" + where(e.byte > 0 ? e.byte - 1 : 0) + ": not JSON: " + e.what());
    }
    if (!json_.is_object()) throw ModelFolderError(file_.string() + ":1:1: not a JSON object");
  }

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    const std::size_t at = text_.find("\"" + key + "\"");
    throw ModelFolderError(file_.string() + ":" + (at == std::string::npos ? "1:1" : where(at)) + ": " + key + ": " +
                           why);
  }
  // For a key inside the object of a top-level key: "parent.key: why", at the key's first mention after parent's.
  [[noreturn]] void fail(const std::string& parent, const std::string& key, const std::string& why) const {
    const std::size_t from = text_.find("\"" + parent + "\"");
    const std::size_t at = from == std::string::npos ? from : text_.find("\"" + key + "\"", from);
    throw ModelFolderError(file_.string() + ":" + where(at == std::string::npos ? from : at) + ": " + parent + "." +
                           key + ": " + why);
  }
  bool has(const std::string& key) const { return json_.contains(key) && !json_.at(key).is_null(); }
  const json& at(const std::string& key) const { return json_.at(key); }

  std::int64_t integer(const std::string& key, std::int64_t fallback, bool required) const {
    if (!has(key)) {
      if (required) fail(key, "missing (a positive integer)");
      return fallback;
    }
    if (!at(key).is_number_integer() || at(key).get<std::int64_t>() < 1) fail(key, "must be a positive integer");
    return at(key).get<std::int64_t>();
  }
  double number(const std::string& key, double fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_number() || !(at(key).get<double>() > 0)) fail(key, "must be a positive number");
    return at(key).get<double>();
  }
  bool boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_boolean()) fail(key, "must be true or false");
    return at(key).get<bool>();
  }

 private:
  std::string where(std::size_t byte) const {
    const std::size_t end = std::min(byte, text_.size());
    const auto line = 1 + std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(end), '\n');
    const std::size_t start = text_.rfind('\n', end == 0 ? 0 : end - 1);
    const std::size_t column = start == std::string::npos || end == 0 ? end + 1 : end - start;
    return std::to_string(line) + ":" + std::to_string(column);
  }

  fs::path file_;
  std::string text_;
  json json_;
};

// Keys whose value would change the model's math from docs/engines.md's: only the value that keeps it is accepted.
void refuse_other_math(const Config& c) {
  if (c.has("hidden_act") && c.at("hidden_act") != "silu") c.fail("hidden_act", "only silu (SwiGLU) is supported");
  for (const char* key : {"attention_bias", "mlp_bias"})
    if (c.has(key) && c.at(key) != false) c.fail(key, "projections with biases are not supported");
  if (c.has("pretraining_tp") && c.at("pretraining_tp") != 1) c.fail("pretraining_tp", "must be 1");
  if (c.has("partial_rotary_factor") && c.at("partial_rotary_factor") != 1.0)
    c.fail("partial_rotary_factor", "RoPE on part of the head is not supported");
  if (c.boolean("use_sliding_window", false)) c.fail("use_sliding_window", "sliding-window attention is not supported");
}

// rope_scaling: null, of type default, or Llama 3's (rope.hpp), whose four numbers must all be there; any other
// type or key would change the math.
void read_rope_scaling(const Config& c, jobs::ModelSpec& m) {
  if (!c.has("rope_scaling")) return;
  const json& r = c.at("rope_scaling");
  if (!r.is_object()) c.fail("rope_scaling", "must be an object (or null)");
  const json type_value = r.value("rope_type", r.value("type", json("")));
  const std::string type = type_value.is_string() ? type_value.get<std::string>() : "";
  if (type == "default") return;
  if (type != "llama3")
    c.fail("rope_scaling", "RoPE scaling '" + type + "' is not supported (null, default or llama3)");
  const auto number = [&](const char* key) {
    if (!r.contains(key)) c.fail("rope_scaling", key, "missing (a positive number; Llama 3's scaling needs it)");
    if (!r.at(key).is_number() || !(r.at(key).get<double>() > 0)) c.fail("rope_scaling", key, "must be > 0");
    return r.at(key).get<double>();
  };
  for (const auto& [key, value] : r.items())
    if (key != "rope_type" && key != "type" && key != "factor" && key != "low_freq_factor" &&
        key != "high_freq_factor" && key != "original_max_position_embeddings")
      c.fail("rope_scaling", key,
             "unknown key for llama3 scaling (factor, low_freq_factor, high_freq_factor, "
             "original_max_position_embeddings)");
  m.rope_scaling_factor = number("factor");
  m.rope_low_freq_factor = number("low_freq_factor");
  m.rope_high_freq_factor = number("high_freq_factor");
  if (!(m.rope_high_freq_factor > m.rope_low_freq_factor))
    c.fail("rope_scaling", "high_freq_factor", "must be greater than low_freq_factor");
  const json& context =
      r.contains("original_max_position_embeddings") ? r.at("original_max_position_embeddings") : json();
  if (!context.is_number_integer() || context.get<std::int64_t>() < 1)
    c.fail("rope_scaling", "original_max_position_embeddings", "missing or not a positive integer");
  m.rope_original_context = context.get<std::int64_t>();
}

}  // namespace

jobs::ModelSpec model_from_folder(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw ModelFolderError(dir.string() + ": not a folder (a Hugging Face model folder)");
  const Config c(dir);
  if (!c.has("architectures") || !c.at("architectures").is_array() || c.at("architectures").size() != 1 ||
      !c.at("architectures")[0].is_string())
    c.fail("architectures", "missing or not a list of one architecture name");
  const std::string arch = c.at("architectures")[0].get<std::string>();
  if (arch != "LlamaForCausalLM" && arch != "MistralForCausalLM" && arch != "Qwen2ForCausalLM" &&
      arch != "Qwen3ForCausalLM")
    c.fail("architectures", "'" + arch +
                                "' is not supported (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, "
                                "Qwen3ForCausalLM)");
  if (arch == "MistralForCausalLM" && c.has("sliding_window"))
    c.fail("sliding_window", "sliding-window attention is not supported (null: attend over the whole context)");
  refuse_other_math(c);
  jobs::ModelSpec m;
  m.architecture = "llama";
  m.qkv_bias = arch == "Qwen2ForCausalLM";  // Qwen2's q, k and v projections always have biases, its o none
  m.qk_norm = arch == "Qwen3ForCausalLM";   // Qwen3: no biases (attention_bias false), q and k normalised per head
  m.path = dir.string();
  m.layers = c.integer("num_hidden_layers", 0, true);
  m.hidden = c.integer("hidden_size", 0, true);
  m.heads = c.integer("num_attention_heads", 0, true);
  m.kv_heads = c.integer("num_key_value_heads", m.heads, false);
  m.head_dim = c.integer("head_dim", m.hidden / m.heads, false);
  m.mlp_hidden = c.integer("intermediate_size", 0, true);
  m.vocab = c.integer("vocab_size", 0, true);
  m.tied_embeddings = c.boolean("tie_word_embeddings", false);  // transformers' default for these architectures
  m.rope_theta = c.number("rope_theta", 10000.0);
  read_rope_scaling(c, m);
  m.norm_eps = c.number("rms_norm_eps", 1e-6);
  if (m.heads % m.kv_heads != 0) c.fail("num_key_value_heads", "must divide num_attention_heads");
  if (m.head_dim % 2 != 0) c.fail(c.has("head_dim") ? "head_dim" : "hidden_size", "the head dimension must be even");
  return m;
}

std::vector<std::string> model_weight_files(const fs::path& dir) {
  if (fs::exists(dir / "model.safetensors")) return {(dir / "model.safetensors").string()};
  const fs::path index = dir / "model.safetensors.index.json";
  if (!fs::exists(index))
    throw ModelFolderError(dir.string() + ": no model.safetensors and no model.safetensors.index.json");
  json j;
  try {
    j = json::parse(read_text(index));
  } catch (const json::exception& e) {
    throw ModelFolderError(index.string() + ": not JSON: " + e.what());
  }
  if (!j.contains("weight_map") || !j.at("weight_map").is_object())
    throw ModelFolderError(index.string() + ": weight_map: missing or not an object");
  std::vector<std::string> files;
  for (const auto& [tensor, file] : j.at("weight_map").items()) {
    if (!file.is_string() || file.get<std::string>().find('/') != std::string::npos)
      throw ModelFolderError(index.string() + ": weight_map: " + tensor + ": not a file name of this folder");
    const std::string path = (dir / file.get<std::string>()).string();
    if (std::find(files.begin(), files.end(), path) != files.end()) continue;
    if (!fs::exists(path)) throw ModelFolderError(index.string() + ": weight_map: " + tensor + ": no file " + path);
    files.push_back(path);
  }
  return files;
}

}  // namespace kforge::kernels::engine
