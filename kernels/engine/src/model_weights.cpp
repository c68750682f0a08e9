#include "kforge/engine/model_weights.hpp"

#include <cmath>
#include <stdexcept>

#include "kforge/engine/model_folder.hpp"

namespace kforge::kernels::engine {

std::int64_t TensorInfo::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string TensorInfo::shape_text() const {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

bool is_attention_layer(const jobs::ModelSpec& model, std::int64_t layer) {
  if (model.architecture != "kimi-linear") return true;
  return model.attention_every > 0 && (layer + 1) % model.attention_every == 0;
}

void check_model(const jobs::ModelSpec& m) {
  if (m.architecture != "llama" && m.architecture != "kimi-linear")
    throw std::invalid_argument("model: architecture \"" + m.architecture + "\" must be llama or kimi-linear");
  const std::pair<const char*, std::int64_t> sizes[] = {
      {"layers", m.layers},     {"hidden", m.hidden},
      {"heads", m.heads},       {"kv_heads", m.kv_heads},
      {"head_dim", m.head_dim}, {"mlp_hidden", m.mlp_hidden},
      {"vocab", m.vocab},       {"attention_every", m.attention_every}};
  for (const auto& [name, value] : sizes)
    if (value < 1)
      throw std::invalid_argument(std::string("model: ") + name + "=" + std::to_string(value) + " must be >= 1");
  if (m.heads % m.kv_heads != 0)
    throw std::invalid_argument("model: kv_heads=" + std::to_string(m.kv_heads) +
                                " does not divide heads=" + std::to_string(m.heads));
  if (m.head_dim % 2 != 0)
    throw std::invalid_argument("model: head_dim=" + std::to_string(m.head_dim) + " must be even (RoPE pairs)");
  if (!(m.rope_theta > 0.0) || !(m.norm_eps > 0.0))
    throw std::invalid_argument("model: rope_theta and norm_eps must be > 0");
  if (m.qkv_bias && m.architecture != "llama") throw std::invalid_argument("model: q/k/v biases are llama's only");
  if (m.qk_norm && m.architecture != "llama") throw std::invalid_argument("model: q/k norms are llama's only");
}

std::vector<TensorInfo> tensor_list(const jobs::ModelSpec& m) {
  check_model(m);
  const std::int64_t H = m.hidden, q_out = m.heads * m.head_dim, kv_out = m.kv_heads * m.head_dim;
  std::vector<TensorInfo> out;
  out.push_back({"model.embed_tokens.weight", {m.vocab, H}});
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    out.push_back({p + "input_layernorm.weight", {H}});
    if (is_attention_layer(m, l)) {
      out.push_back({p + "self_attn.q_proj.weight", {q_out, H}});
      out.push_back({p + "self_attn.k_proj.weight", {kv_out, H}});
      out.push_back({p + "self_attn.v_proj.weight", {kv_out, H}});
      if (m.qkv_bias) {
        out.push_back({p + "self_attn.q_proj.bias", {q_out}});
        out.push_back({p + "self_attn.k_proj.bias", {kv_out}});
        out.push_back({p + "self_attn.v_proj.bias", {kv_out}});
      }
      if (m.qk_norm) {  // Qwen3: one gamma per head dimension, shared by every head
        out.push_back({p + "self_attn.q_norm.weight", {m.head_dim}});
        out.push_back({p + "self_attn.k_norm.weight", {m.head_dim}});
      }
    } else {  // Kimi Delta Attention: heads for q, k and v alike, per-channel decay and per-head beta
      out.push_back({p + "self_attn.q_proj.weight", {q_out, H}});
      out.push_back({p + "self_attn.k_proj.weight", {q_out, H}});
      out.push_back({p + "self_attn.v_proj.weight", {q_out, H}});
      out.push_back({p + "self_attn.f_proj.weight", {q_out, H}});
      out.push_back({p + "self_attn.b_proj.weight", {m.heads, H}});
    }
    out.push_back({p + "self_attn.o_proj.weight", {H, q_out}});
    out.push_back({p + "post_attention_layernorm.weight", {H}});
    out.push_back({p + "mlp.gate_proj.weight", {m.mlp_hidden, H}});
    out.push_back({p + "mlp.up_proj.weight", {m.mlp_hidden, H}});
    out.push_back({p + "mlp.down_proj.weight", {H, m.mlp_hidden}});
  }
  out.push_back({"model.norm.weight", {H}});
  if (!m.tied_embeddings) out.push_back({"lm_head.weight", {m.vocab, H}});
  return out;
}

const float* Weights::tensor(std::string_view name) const {
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return data.data() + offsets[i];
  return nullptr;
}

float* Weights::tensor(std::string_view name) {
  return const_cast<float*>(static_cast<const Weights&>(*this).tensor(name));
}

Weights empty_weights(const jobs::ModelSpec& model) {
  Weights w;
  w.tensors = tensor_list(model);
  std::size_t total = 0;
  for (const auto& t : w.tensors) {
    w.offsets.push_back(total);
    total += static_cast<std::size_t>(t.elements());
  }
  w.data.assign(total, 0.0f);
  return w;
}

namespace {

// splitmix64: a generator whose output is fixed by its definition (std::normal_distribution is not portable).
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53 * 2.0 - 1.0; }  // [-1, 1)
};

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Standard deviation of each tensor's uniform entries (docs/engines.md, "Random weights").
double init_std(const jobs::ModelSpec& m, const TensorInfo& t) {
  const double in = static_cast<double>(t.shape.back()), residual = std::sqrt(2.0 * static_cast<double>(m.layers));
  if (t.name == "model.embed_tokens.weight") return 1.0;
  if (t.name == "lm_head.weight") return 4.0 / std::sqrt(in);
  if (ends_with(t.name, "o_proj.weight") || ends_with(t.name, "down_proj.weight"))
    return 1.0 / (std::sqrt(in) * residual);
  if (ends_with(t.name, "f_proj.weight")) return 1.5 / std::sqrt(in);
  if (ends_with(t.name, "_proj.bias")) return 0.5;  // a shift of the order of the projection's outputs
  return 1.0 / std::sqrt(in);
}

}  // namespace

Weights random_weights(const jobs::ModelSpec& model) {
  Weights w = empty_weights(model);
  for (std::size_t i = 0; i < w.tensors.size(); ++i) {
    const TensorInfo& t = w.tensors[i];
    SplitMix rng{model.weight_seed * 0x2545f4914f6cdd1dULL ^ fnv1a(t.name)};
    float* out = w.data.data() + w.offsets[i];
    const bool norm =
        ends_with(t.name, "norm.weight");  // RMSNorm gammas: 1 +- 0.25, so folding them changes the weights
    const double half_width = norm ? 0.25 : std::sqrt(3.0) * init_std(model, t);
    for (std::int64_t e = 0; e < t.elements(); ++e)
      out[e] = static_cast<float>((norm ? 1.0 : 0.0) + half_width * rng.uniform());
  }
  return w;
}

void check_file_tensors(const std::string& where, const std::vector<TensorInfo>& expected,
                        const std::vector<TensorInfo>& found) {
  auto find = [](const std::vector<TensorInfo>& list, const std::string& name) -> const TensorInfo* {
    for (const auto& t : list)
      if (t.name == name) return &t;
    return nullptr;
  };
  for (const auto& want : expected) {
    const TensorInfo* have = find(found, want.name);
    if (have == nullptr)
      throw std::runtime_error(where + ": tensor " + want.name + " is missing (expected shape " + want.shape_text() +
                               ", found none)");
    if (have->shape != want.shape)
      throw std::runtime_error(where + ": tensor " + want.name + " has shape " + have->shape_text() + ", expected " +
                               want.shape_text());
  }
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (find(expected, found[i].name) == nullptr)
      throw std::runtime_error(where + ": tensor " + found[i].name + " (shape " + found[i].shape_text() +
                               ") is not part of the model (expected shape: none)");
    for (std::size_t j = 0; j < i; ++j)
      if (found[j].name == found[i].name) throw std::runtime_error(where + ": tensor " + found[i].name + " twice");
  }
}

Weights load_weights(const jobs::ModelSpec& model) {
  if (!model.path.empty())
    return load_safetensors_files(model_weight_files(model.path), model, "model folder " + model.path);
  const std::string& path = model.weights_file;
  if (path.empty()) return random_weights(model);
  if (ends_with(path, ".safetensors")) return load_safetensors(path, model);
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) return load_weights_h5(path, model);
  throw std::runtime_error("weights file " + path + ": unknown format (expected .safetensors, .h5 or .hdf5)");
}

void check_weights(const jobs::ModelSpec& model) {
  if (!model.path.empty())
    return check_safetensors_files(model_weight_files(model.path), model, "model folder " + model.path);
  if (ends_with(model.weights_file, ".safetensors"))
    return check_safetensors_files({model.weights_file}, model, "weights file " + model.weights_file);
  if (!model.weights_file.empty()) load_weights(model);
}

}  // namespace kforge::kernels::engine
