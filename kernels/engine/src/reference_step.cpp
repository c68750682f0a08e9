// ReferenceEngine's blocked step: every token of a step goes through a layer together, its projections one double
// matrix product each (reference_blas.hpp), so a step reads the model's weights once instead of once per token: a
// 0.5B-parameter model is verified in seconds, not minutes. Norms, RoPE, attention over the slot's cache and the KDA
// recurrence stay reference_math.hpp's, per token in position order, exactly as the scalar step does them.
#include <algorithm>

#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/reference_math.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "reference_blas.hpp"

namespace kforge::kernels::engine {

using reference_blas::norm_rows;

namespace {
enum OpIndex { kEmbed, kNorm, kQkv, kAttention, kKda, kOProj, kMlp, kLmHead };
}  // namespace

void ReferenceEngine::project(const double* x, std::int64_t n, std::int64_t in, const double* w, std::int64_t out,
                              double* y, bool accumulate) const {
  if (arithmetic_ != ReferenceArithmetic::bf16_operands)
    return reference_blas::project(x, n, in, w, out, y, accumulate);
  thread_local std::vector<double> rounded;
  rounded.assign(x, x + n * in);
  operand(rounded.data(), n * in);
  reference_blas::project(rounded.data(), n, in, w, out, y, accumulate);
}

void ReferenceEngine::operand(double* x, std::int64_t count) const {
  if (arithmetic_ != ReferenceArithmetic::bf16_operands) return;
  for (std::int64_t i = 0; i < count; ++i) x[i] = round_to_bf16(static_cast<float>(x[i]));
}

void ReferenceEngine::project_attention_inputs(const Layer& layer, const std::vector<double>& h, std::vector<double>& q,
                                               std::vector<double>& k, std::vector<double>& v) const {
  const std::int64_t H = model_.hidden, n = static_cast<std::int64_t>(h.size()) / H;
  const std::int64_t q_width = model_.heads * model_.head_dim, kv_width = model_.kv_heads * model_.head_dim;
  q.resize(static_cast<std::size_t>(n * q_width));
  k.resize(static_cast<std::size_t>(n * kv_width));
  v.resize(k.size());
  project(h.data(), n, H, w_.data() + layer.q, q_width, q.data());
  project(h.data(), n, H, w_.data() + layer.k, kv_width, k.data());
  project(h.data(), n, H, w_.data() + layer.v, kv_width, v.data());
  finish_qkv(layer, n, q.data(), k.data(), v.data());
}

void ReferenceEngine::project_kda_inputs(const Layer& layer, const std::vector<double>& h, std::vector<double>& q,
                                         std::vector<double>& k, std::vector<double>& v, std::vector<double>& f,
                                         std::vector<double>& b) const {
  const std::int64_t H = model_.hidden, n = static_cast<std::int64_t>(h.size()) / H;
  const std::int64_t heads = model_.heads, width = heads * model_.head_dim;
  for (auto* out : {&q, &k, &v, &f}) out->resize(static_cast<std::size_t>(n * width));
  b.resize(static_cast<std::size_t>(n * heads));
  project(h.data(), n, H, w_.data() + layer.q, width, q.data());
  project(h.data(), n, H, w_.data() + layer.k, width, k.data());
  project(h.data(), n, H, w_.data() + layer.v, width, v.data());
  project(h.data(), n, H, w_.data() + layer.f, width, f.data());
  project(h.data(), n, H, w_.data() + layer.b, heads, b.data());
}

void ReferenceEngine::mlp_residual(const Layer& layer, const std::vector<double>& h, std::vector<double>& gate,
                                   std::vector<double>& up, std::vector<double>& x) const {
  const std::int64_t H = model_.hidden, F = model_.mlp_hidden, n = static_cast<std::int64_t>(h.size()) / H;
  project(h.data(), n, H, w_.data() + layer.gate, F, gate.data());
  project(h.data(), n, H, w_.data() + layer.up, F, up.data());
  reference_blas::swiglu(gate, up);
  project(gate.data(), n, F, w_.data() + layer.down, H, x.data(), true);
}

void ReferenceEngine::step_attention(const Layer& layer, std::size_t l, const std::vector<SeqDesc>& seqs,
                                     const std::vector<double>& h, std::vector<double>& mixed) {
  const std::int64_t H = model_.hidden, D = model_.head_dim, heads = model_.heads, kvh = model_.kv_heads;
  const auto n = static_cast<std::int64_t>(h.size()) / H;
  const std::int64_t kv_width = kvh * D;
  std::vector<double> q, k, v;
  timed(kQkv, [&] { project_attention_inputs(layer, h, q, k, v); });
  timed(kAttention, [&] {
    mixed.assign(static_cast<std::size_t>(n * heads * D), 0.0);
    std::int64_t row = 0;
    for (const SeqDesc& s : seqs) {
      Slot& slot = slots_[static_cast<std::size_t>(s.slot)];
      auto& kc = slot.k[l];
      auto& vc = slot.v[l];
      const std::int64_t first = s.start_position;
      kc.resize(static_cast<std::size_t>((first + s.token_count) * kv_width));
      vc.resize(kc.size());
      for (std::int64_t t = 0; t < s.token_count; ++t) {  // the chunk's keys and values join the cache first
        double* kt = kc.data() + (first + t) * kv_width;
        std::copy_n(k.data() + (row + t) * kv_width, kv_width, kt);
        std::copy_n(v.data() + (row + t) * kv_width, kv_width, vc.data() + (first + t) * kv_width);
        for (std::int64_t g = 0; g < kvh; ++g) reference_math::rope(kt + g * D, D, first + t, inv_freq_.data());
        operand(kt, kv_width);
        operand(vc.data() + (first + t) * kv_width, kv_width);
      }
      for (std::int64_t t = 0; t < s.token_count; ++t) {  // then each token attends to positions up to its own
        double* qt = q.data() + (row + t) * heads * D;
        for (std::int64_t hd = 0; hd < heads; ++hd) {
          reference_math::rope(qt + hd * D, D, first + t, inv_freq_.data());
          operand(qt + hd * D, D);
          const std::int64_t g = hd / (heads / kvh);  // grouped-query attention: the kv head of this query head
          reference_math::attend(qt + hd * D, kc.data() + g * D, vc.data() + g * D, kv_width, first + t, D,
                                 mixed.data() + (row + t) * heads * D + hd * D, bf16_probabilities());
        }
      }
      row += s.token_count;
    }
  });
}

void ReferenceEngine::step_kda(const Layer& layer, std::size_t l, const std::vector<SeqDesc>& seqs,
                               const std::vector<double>& h, std::vector<double>& mixed) {
  const std::int64_t H = model_.hidden, D = model_.head_dim, heads = model_.heads, width = heads * D;
  const auto n = static_cast<std::int64_t>(h.size()) / H;
  std::vector<double> q, k, v, f, b;
  timed(kQkv, [&] { project_kda_inputs(layer, h, q, k, v, f, b); });
  timed(kKda, [&] {
    mixed.assign(static_cast<std::size_t>(n * width), 0.0);
    std::int64_t row = 0;
    for (const SeqDesc& s : seqs) {
      double* state = slots_[static_cast<std::size_t>(s.slot)].state[l].data();
      for (std::int64_t t = 0; t < s.token_count; ++t, ++row)
        for (std::int64_t hd = 0; hd < heads; ++hd) {
          const std::int64_t at = row * width + hd * D;
          reference_math::kda_token(state + hd * D * D, q.data() + at, k.data() + at, v.data() + at, f.data() + at,
                                    b[static_cast<std::size_t>(row * heads + hd)], D, mixed.data() + at);
        }
    }
  });
}

std::vector<double> ReferenceEngine::step_blocked(const std::vector<SeqDesc>& seqs,
                                                  const std::vector<std::int32_t>& tokens) {
  reference_blas::use_reference_threads();
  const std::int64_t H = model_.hidden, F = model_.mlp_hidden, V = model_.vocab;
  const auto n = static_cast<std::int64_t>(tokens.size());
  std::vector<double> x(static_cast<std::size_t>(n * H)), h, mixed, gate(static_cast<std::size_t>(n * F)),
      up(gate.size());
  timed(kEmbed, [&] {
    for (std::int64_t r = 0; r < n; ++r) std::copy_n(w_.data() + embed_ + tokens[r] * H, H, x.data() + r * H);
  });
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    timed(kNorm, [&] { norm_rows(x, w_.data() + layer.in_norm, model_.norm_eps, H, h); });
    if (layer.attention)
      step_attention(layer, l, seqs, h, mixed);
    else
      step_kda(layer, l, seqs, h, mixed);
    timed(kOProj, [&] {
      project(mixed.data(), n, static_cast<std::int64_t>(mixed.size()) / n, w_.data() + layer.o, H, x.data(), true);
    });
    timed(kNorm, [&] { norm_rows(x, w_.data() + layer.post_norm, model_.norm_eps, H, h); });
    timed(kMlp, [&] { mlp_residual(layer, h, gate, up, x); });
  }
  const auto S = static_cast<std::int64_t>(seqs.size());
  std::vector<double> last(static_cast<std::size_t>(S * H)), logits(static_cast<std::size_t>(S * V));
  timed(kNorm, [&] {
    std::int64_t row = -1;
    for (std::int64_t i = 0; i < S; ++i) {
      row += seqs[static_cast<std::size_t>(i)].token_count;  // the sequence's last token
      reference_math::rms_norm(x.data() + row * H, w_.data() + final_norm_, model_.norm_eps, H, last.data() + i * H);
    }
  });
  timed(kLmHead, [&] { project(last.data(), S, H, w_.data() + lm_head_, V, logits.data()); });
  for (const SeqDesc& s : seqs) slots_[static_cast<std::size_t>(s.slot)].length = s.start_position + s.token_count;
  return logits;
}

}  // namespace kforge::kernels::engine
