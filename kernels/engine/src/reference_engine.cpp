#include "kforge/engine/reference_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>

#include "kforge/engine/reference_math.hpp"
#include "kforge/engine/rope.hpp"
#include "reference_blas.hpp"

namespace kforge::kernels::engine {
namespace {

enum OpIndex { kEmbed, kNorm, kQkv, kAttention, kKda, kOProj, kMlp, kLmHead };

// y = W x for W [out][in] (Hugging Face's layout), accumulating into y when add.
void matvec(const double* w, std::int64_t out, std::int64_t in, const double* x, double* y, bool add = false) {
  for (std::int64_t o = 0; o < out; ++o) {
    double sum = 0.0;
    const double* row = w + o * in;
    for (std::int64_t i = 0; i < in; ++i) sum += row[i] * x[i];
    y[o] = add ? y[o] + sum : sum;
  }
}

std::vector<double> rms_norm(const std::vector<double>& x, const double* gamma, double eps) {
  std::vector<double> out(x.size());
  reference_math::rms_norm(x.data(), gamma, eps, static_cast<std::int64_t>(x.size()), out.data());
  return out;
}

}  // namespace

ReferenceEngine::ReferenceEngine(const jobs::ModelSpec& model, const Weights& weights, int max_slots, int max_context,
                                 ReferenceArithmetic arithmetic)
    : model_(model), max_context_(max_context), arithmetic_(arithmetic) {
  const std::vector<TensorInfo> expected = tensor_list(model);
  if (weights.tensors != expected || weights.offsets.size() != expected.size())
    throw std::invalid_argument("reference engine: the weights do not hold this model's tensors");
  if (max_slots < 1 || max_context < 1)
    throw std::invalid_argument("reference engine: max_slots and max_context must be >= 1");
  inv_freq_ = rope_inverse_frequencies(model);
  w_.assign(weights.data.begin(), weights.data.end());
  auto at = [&](const std::string& name) {
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (expected[i].name == name) return weights.offsets[i];
    throw std::logic_error("reference engine: no tensor " + name);
  };
  embed_ = at("model.embed_tokens.weight");
  final_norm_ = at("model.norm.weight");
  lm_head_ = model.tied_embeddings ? embed_ : at("lm_head.weight");
  for (std::int64_t l = 0; l < model.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    Layer layer;
    layer.attention = is_attention_layer(model, l);
    layer.in_norm = at(p + "input_layernorm.weight");
    layer.q = at(p + "self_attn.q_proj.weight");
    layer.k = at(p + "self_attn.k_proj.weight");
    layer.v = at(p + "self_attn.v_proj.weight");
    if (layer.attention && model.qkv_bias) {
      layer.q_bias = at(p + "self_attn.q_proj.bias");
      layer.k_bias = at(p + "self_attn.k_proj.bias");
      layer.v_bias = at(p + "self_attn.v_proj.bias");
    }
    if (layer.attention && model.qk_norm) {
      layer.q_norm = at(p + "self_attn.q_norm.weight");
      layer.k_norm = at(p + "self_attn.k_norm.weight");
    }
    if (!layer.attention) {
      layer.f = at(p + "self_attn.f_proj.weight");
      layer.b = at(p + "self_attn.b_proj.weight");
    }
    layer.o = at(p + "self_attn.o_proj.weight");
    layer.post_norm = at(p + "post_attention_layernorm.weight");
    layer.gate = at(p + "mlp.gate_proj.weight");
    layer.up = at(p + "mlp.up_proj.weight");
    layer.down = at(p + "mlp.down_proj.weight");
    layers_.push_back(layer);
  }
  slots_.resize(static_cast<std::size_t>(max_slots));
  for (auto& slot : slots_) reset(slot);
}

void ReferenceEngine::finish_qkv(const Layer& layer, std::int64_t rows, double* q, double* k, double* v) const {
  const std::int64_t D = model_.head_dim, q_width = model_.heads * D, kv_width = model_.kv_heads * D;
  if (model_.qkv_bias) {
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t c = 0; c < q_width; ++c) q[r * q_width + c] += w_[layer.q_bias + c];
      for (std::int64_t c = 0; c < kv_width; ++c) {
        k[r * kv_width + c] += w_[layer.k_bias + c];
        v[r * kv_width + c] += w_[layer.v_bias + c];
      }
    }
  }
  if (model_.qk_norm) {
    for (std::int64_t head = 0; head < rows * model_.heads; ++head)
      reference_math::rms_norm(q + head * D, w_.data() + layer.q_norm, model_.norm_eps, D, q + head * D);
    for (std::int64_t head = 0; head < rows * model_.kv_heads; ++head)
      reference_math::rms_norm(k + head * D, w_.data() + layer.k_norm, model_.norm_eps, D, k + head * D);
  }
}

void ReferenceEngine::use_rope_inverse_frequencies(std::vector<double> inv_freq) {
  if (inv_freq.size() != inv_freq_.size())
    throw std::invalid_argument("reference engine: " + std::to_string(inv_freq.size()) +
                                " RoPE frequencies for a head dimension of " + std::to_string(model_.head_dim));
  inv_freq_ = std::move(inv_freq);
}

std::int64_t ReferenceEngine::position(int slot) const { return slots_.at(static_cast<std::size_t>(slot)).length; }

void ReferenceEngine::reset(Slot& slot) const {
  const std::size_t L = layers_.size(), D = static_cast<std::size_t>(model_.head_dim);
  slot.length = 0;
  slot.k.assign(L, {});
  slot.v.assign(L, {});
  slot.state.assign(L, {});
  for (std::size_t l = 0; l < L; ++l)
    if (!layers_[l].attention) slot.state[l].assign(static_cast<std::size_t>(model_.heads) * D * D, 0.0);
}

std::vector<double> ReferenceEngine::step(const std::vector<SeqDesc>& seqs, const std::vector<std::int32_t>& tokens) {
  // Everything is checked before any slot changes, so a refused step leaves the engine as it was.
  std::int64_t total = 0;
  std::set<std::int64_t> seen;
  for (const auto& s : seqs) {
    const std::string where = "reference engine: sequence in slot " + std::to_string(s.slot);
    if (s.slot < 0 || s.slot >= static_cast<std::int64_t>(slots_.size()) || !seen.insert(s.slot).second)
      throw std::invalid_argument(where + ": slot out of range or repeated in one step");
    const std::int64_t held = slots_[static_cast<std::size_t>(s.slot)].length;
    if (s.token_count < 1 || (s.start_position != 0 && s.start_position != held) ||
        s.start_position + s.token_count > max_context_)
      throw std::invalid_argument(where + ": start_position " + std::to_string(s.start_position) + " with " +
                                  std::to_string(s.token_count) + " tokens does not continue the slot's " +
                                  std::to_string(held) + " positions within max_context " +
                                  std::to_string(max_context_));
    total += s.token_count;
  }
  if (total != static_cast<std::int64_t>(tokens.size()))
    throw std::invalid_argument("reference engine: the sequences hold " + std::to_string(total) + " tokens, " +
                                std::to_string(tokens.size()) + " were given");
  for (auto t : tokens)
    if (t < 0 || t >= model_.vocab)
      throw std::invalid_argument("reference engine: token " + std::to_string(t) + " out of range");
  seconds_.fill(0.0);
  for (const auto& s : seqs)
    if (s.start_position == 0) reset(slots_[static_cast<std::size_t>(s.slot)]);
  if (arithmetic_ != ReferenceArithmetic::scalar) return step_blocked(seqs, tokens);
  std::vector<double> logits(seqs.size() * static_cast<std::size_t>(model_.vocab));
  std::size_t next = 0;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    Slot& slot = slots_[static_cast<std::size_t>(seqs[i].slot)];
    for (std::int64_t t = 0; t < seqs[i].token_count; ++t, ++next)
      forward_token(slot, tokens[next], t + 1 == seqs[i].token_count ? logits.data() + i * model_.vocab : nullptr);
  }
  return logits;
}

void ReferenceEngine::forward_token(Slot& slot, std::int32_t token, double* logits) {
  const std::int64_t H = model_.hidden;
  std::vector<double> x(static_cast<std::size_t>(H)), h, mixed, gate, up;
  timed(kEmbed, [&] { std::copy_n(w_.data() + embed_ + static_cast<std::size_t>(token) * H, H, x.begin()); });
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    timed(kNorm, [&] { h = rms_norm(x, w_.data() + layer.in_norm, model_.norm_eps); });
    if (layer.attention)
      attention(layer, l, slot, h, mixed);
    else
      kda(layer, l, slot, h, mixed);
    timed(kOProj, [&] {
      matvec(w_.data() + layer.o, H, static_cast<std::int64_t>(mixed.size()), mixed.data(), x.data(), true);
    });
    timed(kNorm, [&] { h = rms_norm(x, w_.data() + layer.post_norm, model_.norm_eps); });
    timed(kMlp, [&] {
      const std::int64_t M = model_.mlp_hidden;
      gate.resize(static_cast<std::size_t>(M));
      up.resize(static_cast<std::size_t>(M));
      matvec(w_.data() + layer.gate, M, H, h.data(), gate.data());
      matvec(w_.data() + layer.up, M, H, h.data(), up.data());
      for (std::int64_t j = 0; j < M; ++j)
        gate[j] = gate[j] * reference_math::sigmoid(gate[j]) * up[j];  // SiLU(gate) * up
      matvec(w_.data() + layer.down, H, M, gate.data(), x.data(), true);
    });
  }
  ++slot.length;
  if (logits == nullptr) return;
  timed(kNorm, [&] { h = rms_norm(x, w_.data() + final_norm_, model_.norm_eps); });
  timed(kLmHead, [&] { matvec(w_.data() + lm_head_, model_.vocab, H, h.data(), logits); });
}

void ReferenceEngine::attention(const Layer& layer, std::size_t l, Slot& slot, const std::vector<double>& h,
                                std::vector<double>& out) {
  const std::int64_t H = model_.hidden, D = model_.head_dim, heads = model_.heads, kvh = model_.kv_heads;
  const std::int64_t pos = slot.length, kv_width = kvh * D;
  std::vector<double> q(static_cast<std::size_t>(heads * D));
  auto& kc = slot.k[l];
  auto& vc = slot.v[l];
  kc.resize(static_cast<std::size_t>((pos + 1) * kv_width));
  vc.resize(kc.size());
  double* k = kc.data() + pos * kv_width;
  double* v = vc.data() + pos * kv_width;
  timed(kQkv, [&] {
    matvec(w_.data() + layer.q, heads * D, H, h.data(), q.data());
    matvec(w_.data() + layer.k, kv_width, H, h.data(), k);
    matvec(w_.data() + layer.v, kv_width, H, h.data(), v);
    finish_qkv(layer, 1, q.data(), k, v);
  });
  timed(kAttention, [&] {
    for (std::int64_t hd = 0; hd < heads; ++hd) reference_math::rope(q.data() + hd * D, D, pos, inv_freq_.data());
    for (std::int64_t hd = 0; hd < kvh; ++hd) reference_math::rope(k + hd * D, D, pos, inv_freq_.data());
    out.assign(static_cast<std::size_t>(heads * D), 0.0);
    for (std::int64_t hd = 0; hd < heads; ++hd) {
      const std::int64_t g = hd / (heads / kvh);  // grouped-query attention: the kv head of this query head
      reference_math::attend(q.data() + hd * D, kc.data() + g * D, vc.data() + g * D, kv_width, pos, D,
                             out.data() + hd * D);
    }
  });
}

void ReferenceEngine::kda(const Layer& layer, std::size_t l, Slot& slot, const std::vector<double>& h,
                          std::vector<double>& out) {
  const std::int64_t H = model_.hidden, D = model_.head_dim, heads = model_.heads, width = heads * D;
  std::vector<double> q(static_cast<std::size_t>(width)), k(q.size()), v(q.size()), f(q.size()),
      b(static_cast<std::size_t>(heads));
  timed(kQkv, [&] {
    matvec(w_.data() + layer.q, width, H, h.data(), q.data());
    matvec(w_.data() + layer.k, width, H, h.data(), k.data());
    matvec(w_.data() + layer.v, width, H, h.data(), v.data());
    matvec(w_.data() + layer.f, width, H, h.data(), f.data());
    matvec(w_.data() + layer.b, heads, H, h.data(), b.data());
  });
  timed(kKda, [&] {
    out.assign(static_cast<std::size_t>(width), 0.0);
    for (std::int64_t hd = 0; hd < heads; ++hd) {
      reference_math::kda_token(slot.state[l].data() + hd * D * D, q.data() + hd * D, k.data() + hd * D,
                                v.data() + hd * D, f.data() + hd * D, b[static_cast<std::size_t>(hd)], D,
                                out.data() + hd * D);
    }
  });
}

namespace {
std::atomic<int> threads_for_reference{1};
}  // namespace

void set_reference_threads(int threads) { threads_for_reference = std::clamp(threads, 1, 64); }
int reference_threads() { return threads_for_reference; }

void reference_blas::use_reference_threads() { openblas_set_num_threads(threads_for_reference); }

}  // namespace kforge::kernels::engine
