#include "cuda_engine_weights.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

#include "bf16.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using kernels::engine::Weights;

// A projection on the host: rows of `k` inputs, one per output.
struct HostMatrix {
  std::vector<float> rows;
  int n = 0, k = 0;
};

const float* tensor_of(const Weights& w, const std::string& name) {
  const float* t = w.tensor(name);
  if (t == nullptr) throw std::invalid_argument("cuda engine: the weights lack tensor " + name);
  return t;
}

HostMatrix matrix_of(const Weights& w, const std::string& name, std::int64_t n, std::int64_t k) {
  const float* t = tensor_of(w, name);
  return {std::vector<float>(t, t + n * k), static_cast<int>(n), static_cast<int>(k)};
}

HostMatrix concat_rows(const std::vector<HostMatrix>& parts) {
  HostMatrix out{{}, 0, parts.front().k};
  for (const HostMatrix& p : parts) {
    out.rows.insert(out.rows.end(), p.rows.begin(), p.rows.end());
    out.n += p.n;
  }
  return out;
}

// W diag(gamma): RMSNorm's gamma moved into the projection that reads the normed row.
void fold(HostMatrix& m, const float* gamma) {
  for (int r = 0; r < m.n; ++r)
    for (int c = 0; c < m.k; ++c) m.rows[static_cast<std::size_t>(r) * m.k + c] *= gamma[c];
}

std::uint64_t upload_floats(EngineDevice& device, const float* data, std::size_t count) {
  const std::uint64_t at = device.allocate(count * sizeof(float));
  device.upload(at, data, count * sizeof(float));
  return at;
}

template <class T>
std::uint64_t upload_vector(EngineDevice& device, const std::vector<T>& values) {
  const std::uint64_t at = device.allocate(values.size() * sizeof(T));
  device.upload(at, values.data(), values.size() * sizeof(T));
  return at;
}

// int8 and fp8: each row (an output) back to its codes and scale. The harness rounded it to code * scale with
// scale = max|row| / 127 or / 448 (weight_precision.hpp); the same rule on the rounded row finds that scale again, or
// one an ulp away, and the same codes: the stored weight is then within an ulp of the harness's.
void to_coded_row(const float* row, int k, bool fp8, std::uint8_t* code, float& scale) {
  const std::span<const float> values{row, static_cast<std::size_t>(k)};
  scale = fp8 ? kernels::engine::fp8_row_scale(values) : kernels::engine::int8_row_scale(values);
  for (int c = 0; c < k; ++c) {
    const float y = scale == 0.f ? 0.f : row[c] / scale;
    code[c] = fp8 ? kernels::engine::e4m3_bits(kernels::engine::round_to_e4m3(y))
                  : static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(std::nearbyint(y), -127.f, 127.f)));
  }
}

// A matrix as the genome stores it: fp32, bf16 bits (exact: the harness rounded the model to bf16), or int8 or E4M3
// codes with a scale per output; [n][k], or [k][n] with prepack.
DeviceMatrix upload_matrix(EngineDevice& device, const HostMatrix& m, const CudaEngineParams& p, int column) {
  DeviceMatrix out{0, m.n, m.k, column, 0};
  const auto at = [&](int r, int c) {
    return p.prepack ? static_cast<std::size_t>(c) * m.n + r : static_cast<std::size_t>(r) * m.k + c;
  };
  const bool fp8 = p.weights == kernels::engine::WeightPrecision::fp8;
  if (fp8 || p.weights == kernels::engine::WeightPrecision::int8) {
    std::vector<std::uint8_t> q(m.rows.size()), row_q(static_cast<std::size_t>(m.k));
    std::vector<float> scales(static_cast<std::size_t>(m.n));
    for (int r = 0; r < m.n; ++r) {
      to_coded_row(m.rows.data() + static_cast<std::size_t>(r) * m.k, m.k, fp8, row_q.data(),
                   scales[static_cast<std::size_t>(r)]);
      for (int c = 0; c < m.k; ++c) q[at(r, c)] = row_q[static_cast<std::size_t>(c)];
    }
    out.address = upload_vector(device, q);
    out.scales = upload_vector(device, scales);
    return out;
  }
  std::vector<float> values(m.rows.size());
  for (int r = 0; r < m.n; ++r)
    for (int c = 0; c < m.k; ++c) values[at(r, c)] = m.rows[static_cast<std::size_t>(r) * m.k + c];
  if (p.weights == kernels::engine::WeightPrecision::fp32) {
    out.address = upload_vector(device, values);
    return out;
  }
  std::vector<std::uint16_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = float_to_bf16(values[i]);
  out.address = upload_vector(device, bits);
  return out;
}

// Uploads `parts` as one fused matrix or one each, at consecutive columns of the output row; folds `gamma` first.
std::vector<DeviceMatrix> upload_group(EngineDevice& device, std::vector<HostMatrix> parts, bool fuse,
                                       const float* gamma, const CudaEngineParams& p) {
  if (gamma != nullptr)
    for (HostMatrix& m : parts) fold(m, gamma);
  if (fuse) return {upload_matrix(device, concat_rows(parts), p, 0)};
  std::vector<DeviceMatrix> out;
  int column = 0;
  for (const HostMatrix& m : parts) {
    out.push_back(upload_matrix(device, m, p, column));
    column += m.n;
  }
  return out;
}

DeviceLayer upload_layer(EngineDevice& device, const jobs::ModelSpec& model, const Weights& w, std::int64_t l,
                         const CudaEngineParams& p) {
  const std::string at = "model.layers." + std::to_string(l) + ".";
  const std::int64_t H = model.hidden, D = model.head_dim, F = model.mlp_hidden;
  DeviceLayer layer;
  layer.attention = kernels::engine::is_attention_layer(model, l);
  const float* in_gamma = tensor_of(w, at + "input_layernorm.weight");
  const float* post_gamma = tensor_of(w, at + "post_attention_layernorm.weight");
  if (!p.fold_norm) {
    layer.in_gamma = upload_floats(device, in_gamma, static_cast<std::size_t>(H));
    layer.post_gamma = upload_floats(device, post_gamma, static_cast<std::size_t>(H));
  }
  const std::int64_t kv_rows = (layer.attention ? model.kv_heads : model.heads) * D;
  std::vector<HostMatrix> in = {matrix_of(w, at + "self_attn.q_proj.weight", model.heads * D, H),
                                matrix_of(w, at + "self_attn.k_proj.weight", kv_rows, H),
                                matrix_of(w, at + "self_attn.v_proj.weight", kv_rows, H)};
  if (!layer.attention) {
    in.push_back(matrix_of(w, at + "self_attn.f_proj.weight", model.heads * D, H));
    in.push_back(matrix_of(w, at + "self_attn.b_proj.weight", model.heads, H));
  }
  for (const HostMatrix& m : in) layer.in_width += m.n;
  layer.in_proj = upload_group(device, std::move(in), p.fuse_qkv, p.fold_norm ? in_gamma : nullptr, p);
  layer.o = upload_matrix(device, matrix_of(w, at + "self_attn.o_proj.weight", H, model.heads * D), p, 0);
  layer.gate_up = upload_group(
      device, {matrix_of(w, at + "mlp.gate_proj.weight", F, H), matrix_of(w, at + "mlp.up_proj.weight", F, H)},
      p.fuse_gate_up, p.fold_norm ? post_gamma : nullptr, p);
  layer.down = upload_matrix(device, matrix_of(w, at + "mlp.down_proj.weight", H, F), p, 0);
  return layer;
}

}  // namespace

DeviceWeights upload_weights(EngineDevice& device, const jobs::ModelSpec& model, const Weights& weights,
                             const CudaEngineParams& params) {
  kernels::engine::check_model(model);
  if (model.qkv_bias) throw std::invalid_argument("cuda engine: q/k/v biases (Qwen2) are not served yet");
  if (model.qk_norm) throw std::invalid_argument("cuda engine: per-head q/k norms (Qwen3) are not served yet");
  const std::int64_t H = model.hidden, V = model.vocab;
  DeviceWeights out;
  out.embed = upload_floats(device, tensor_of(weights, "model.embed_tokens.weight"), static_cast<std::size_t>(V * H));
  for (std::int64_t l = 0; l < model.layers; ++l) out.layers.push_back(upload_layer(device, model, weights, l, params));
  const float* final_gamma = tensor_of(weights, "model.norm.weight");
  if (!params.fold_norm) out.final_gamma = upload_floats(device, final_gamma, static_cast<std::size_t>(H));
  HostMatrix head = matrix_of(weights, model.tied_embeddings ? "model.embed_tokens.weight" : "lm_head.weight", V, H);
  if (params.fold_norm) fold(head, final_gamma);
  // Tied, neither folded nor prepacked, and stored in fp32 as the embedding: the head is the embedding itself, not
  // a copy. (The embedding stays fp32 in every precision: its rows are gathered, one per token, never streamed.)
  out.head = (model.tied_embeddings && !params.fold_norm && !params.prepack &&
              params.weights == kernels::engine::WeightPrecision::fp32)
                 ? DeviceMatrix{out.embed, static_cast<int>(V), static_cast<int>(H), 0, 0}
                 : upload_matrix(device, head, params, 0);
  return out;
}

}  // namespace kforge::kernels::cuda::engine
