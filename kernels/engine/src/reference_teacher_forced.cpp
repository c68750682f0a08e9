// ReferenceEngine::teacher_forced: whole sequences through the reference model at once. The projections of all
// tokens are one double matrix product each (OpenBLAS dgemm, blocked and vectorised); norms, RoPE, attention and
// the KDA recurrence are reference_math.hpp's, per token in position order, as step() does them.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/reference_math.hpp"
#include "reference_blas.hpp"

namespace kforge::kernels::engine {
namespace {

using reference_blas::norm_rows;

std::size_t total_tokens(std::span<const ForcedSequence> seqs) {
  std::size_t n = 0;
  for (const auto& s : seqs) n += s.tokens.size();
  return n;
}

}  // namespace

void ReferenceEngine::forced_attention(const Layer& layer, std::span<const ForcedSequence> seqs,
                                       const std::vector<double>& h, std::vector<double>& mixed) const {
  const std::int64_t D = model_.head_dim, heads = model_.heads, kvh = model_.kv_heads;
  const std::int64_t n = static_cast<std::int64_t>(total_tokens(seqs)), kv_width = kvh * D;
  std::vector<double> q, k, v;
  project_attention_inputs(layer, h, q, k, v);
  mixed.assign(static_cast<std::size_t>(n * heads * D), 0.0);
  std::int64_t first = 0;  // the sequence's first token row
  for (const auto& s : seqs) {
    const auto len = static_cast<std::int64_t>(s.tokens.size());
    for (std::int64_t t = 0; t < len; ++t) {
      for (std::int64_t hd = 0; hd < heads; ++hd)
        reference_math::rope(q.data() + (first + t) * heads * D + hd * D, D, t, inv_freq_.data());
      for (std::int64_t g = 0; g < kvh; ++g)
        reference_math::rope(k.data() + (first + t) * kv_width + g * D, D, t, inv_freq_.data());
    }
    operand(q.data() + first * heads * D, len * heads * D);
    operand(k.data() + first * kv_width, len * kv_width);
    operand(v.data() + first * kv_width, len * kv_width);
    for (std::int64_t t = 0; t < len; ++t) {
      for (std::int64_t hd = 0; hd < heads; ++hd) {
        const std::int64_t g = hd / (heads / kvh);
        reference_math::attend(q.data() + (first + t) * heads * D + hd * D, k.data() + first * kv_width + g * D,
                               v.data() + first * kv_width + g * D, kv_width, t, D,
                               mixed.data() + (first + t) * heads * D + hd * D, bf16_probabilities());
      }
    }
    first += len;
  }
}

void ReferenceEngine::forced_kda(const Layer& layer, std::span<const ForcedSequence> seqs, const std::vector<double>& h,
                                 std::vector<double>& mixed) const {
  const std::int64_t D = model_.head_dim, heads = model_.heads, width = heads * D;
  const auto n = static_cast<std::int64_t>(total_tokens(seqs));
  std::vector<double> q, k, v, f, b;
  project_kda_inputs(layer, h, q, k, v, f, b);
  mixed.assign(static_cast<std::size_t>(n * width), 0.0);
  std::vector<double> state(static_cast<std::size_t>(heads * D * D));
  std::int64_t row = 0;
  for (const auto& s : seqs) {
    std::fill(state.begin(), state.end(), 0.0);  // each sequence starts from a zero state, as a fresh slot
    for (std::size_t t = 0; t < s.tokens.size(); ++t, ++row) {
      for (std::int64_t hd = 0; hd < heads; ++hd) {
        const std::int64_t at = row * width + hd * D;
        reference_math::kda_token(state.data() + hd * D * D, q.data() + at, k.data() + at, v.data() + at, f.data() + at,
                                  b[static_cast<std::size_t>(row * heads + hd)], D, mixed.data() + at);
      }
    }
  }
}

std::vector<std::vector<double>> ReferenceEngine::teacher_forced(std::span<const ForcedSequence> seqs) const {
  for (const auto& s : seqs) {
    if (s.tokens.empty() || s.first_row < 0 || s.first_row >= static_cast<std::int64_t>(s.tokens.size()))
      throw std::invalid_argument("reference engine: a teacher-forced sequence of " + std::to_string(s.tokens.size()) +
                                  " tokens cannot give logits from position " + std::to_string(s.first_row));
    for (const std::int32_t t : s.tokens)
      if (t < 0 || t >= model_.vocab)
        throw std::invalid_argument("reference engine: token " + std::to_string(t) + " out of range");
  }
  reference_blas::use_reference_threads();
  const std::int64_t H = model_.hidden, F = model_.mlp_hidden, V = model_.vocab;
  const auto n = static_cast<std::int64_t>(total_tokens(seqs));
  std::vector<double> x(static_cast<std::size_t>(n * H)), h, mixed, gate(static_cast<std::size_t>(n * F)),
      up(gate.size());
  std::int64_t row = 0;
  for (const auto& s : seqs)
    for (const std::int32_t t : s.tokens) std::copy_n(w_.data() + embed_ + t * H, H, x.data() + row++ * H);
  for (const Layer& layer : layers_) {
    norm_rows(x, w_.data() + layer.in_norm, model_.norm_eps, H, h);
    if (layer.attention)
      forced_attention(layer, seqs, h, mixed);
    else
      forced_kda(layer, seqs, h, mixed);
    project(mixed.data(), n, static_cast<std::int64_t>(mixed.size()) / n, w_.data() + layer.o, H, x.data(), true);
    norm_rows(x, w_.data() + layer.post_norm, model_.norm_eps, H, h);
    mlp_residual(layer, h, gate, up, x);
  }
  std::vector<std::vector<double>> out;
  std::int64_t first = 0;
  for (const auto& s : seqs) {
    const std::int64_t rows = static_cast<std::int64_t>(s.tokens.size()) - s.first_row;
    std::vector<double> normed(static_cast<std::size_t>(rows * H));
    for (std::int64_t r = 0; r < rows; ++r)
      reference_math::rms_norm(x.data() + (first + s.first_row + r) * H, w_.data() + final_norm_, model_.norm_eps, H,
                               normed.data() + r * H);
    std::vector<double> logits(static_cast<std::size_t>(rows * V));
    project(normed.data(), rows, H, w_.data() + lm_head_, V, logits.data());
    out.push_back(std::move(logits));
    first += static_cast<std::int64_t>(s.tokens.size());
  }
  return out;
}

}  // namespace kforge::kernels::engine
