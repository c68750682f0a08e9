// The engine template's text (engine_template_text.hpp): Kimi Delta Attention. Decode steps run the recurrence token
// by token; with KDA_CHUNK > 0 a prefill run of several tokens goes through the kda family's chunked kernel, rendered
// with the genome's KDA_* values into namespace kda_kernel (engine_template.cpp).
#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine::text {
namespace {

std::string chunked_prefill() {
  return R"ENG(
// One sequence's prefill run, for one head, through the kda family's chunked kernel (kda_kernel::key_side and
// value_tile). That kernel's chunk form divides by the decay inside its chunk (k e^-G): the kda family may, as its
// gate is at least log 0.5, but a model's decay has no lower bound. So each chunk here applies its first token's
// decay to the state first (G = 0 at that token) and ends before the token where the decay since then would pass
// e^-60 in some channel: e^-G stays below e^60, far from fp32's e^88. Under fast decay the chunks get short, down to
// one token each: the recurrence again.
constexpr float kKdaChunkLogDecayFloor = -60.0f;

struct KdaChunkScratch {
  std::vector<float> q, k, v, g, beta, o, G;  // [KDA_CHUNK][D] rows as the kernel reads them; G: [D]
  kda_kernel::Work work;                      // the kernel's buffers; work.S holds the state during the run
  explicit KdaChunkScratch(i64 D)
      : q(static_cast<std::size_t>(KDA_CHUNK * D)), k(q.size()), v(q.size()), g(q.size()), beta(KDA_CHUNK),
        o(q.size()), G(static_cast<std::size_t>(D)), work(static_cast<int>(D)) {}
};

void kda_prefill_chunked(const float* rows, i64 n_rows, i64 hd, float* S, float* out, KdaChunkScratch& x) {
  const i64 D = M.head_dim, W = M.kda_proj_width, QW = M.q_width;
  const std::size_t state_bytes = static_cast<std::size_t>(D * D) * sizeof(float);
  std::memcpy(x.work.S.data(), S, state_bytes);
  const kda_kernel::Head head{x.q.data(), x.k.data(), x.v.data(), x.g.data(), x.beta.data(), x.o.data(), D, 1,
                              static_cast<int>(D)};
  for (i64 r = 0; r < n_rows;) {
    i64 n = 0;
    for (; n < KDA_CHUNK && r + n < n_rows; ++n) {
      const float* row = rows + (r + n) * W;
      float* g = x.g.data() + n * D;
      kda_token(row, hd, x.q.data() + n * D, x.k.data() + n * D, g, x.beta[static_cast<std::size_t>(n)]);
      std::memcpy(x.v.data() + n * D, row + 2 * QW + hd * D, static_cast<std::size_t>(D) * sizeof(float));
      if (n == 0) {  // the first token's decay goes into the state
        for (i64 c = 0; c < D; ++c) {
          const float alpha = std::exp(g[c]);
          for (i64 col = 0; col < D; ++col) x.work.S[c * D + col] *= alpha;
          g[c] = x.G[c] = 0.0f;
        }
        continue;
      }
      float lowest = 0.0f;
      for (i64 c = 0; c < D; ++c) lowest = std::min(lowest, x.G[c] += g[c]);
      if (lowest < kKdaChunkLogDecayFloor) break;  // token r + n starts the next chunk
    }
    kda_kernel::key_side(x.work, head, 0, static_cast<int>(n));
    for (int v0 = 0; v0 < D; v0 += kda_kernel::DV_TILE)
      kda_kernel::value_tile(x.work, head, 0, static_cast<int>(n), v0,
                             std::min(kda_kernel::DV_TILE, static_cast<int>(D) - v0));
    for (i64 i = 0; i < n; ++i)
      std::memcpy(out + (r + i) * QW, x.o.data() + i * D, static_cast<std::size_t>(D) * sizeof(float));
    r += n;
  }
  std::memcpy(S, x.work.S.data(), state_bytes);
}
)ENG";
}

// KDA_CHUNK = 0: no chunked kernel is rendered and every token takes the recurrence; kda() never calls this.
std::string no_chunked_prefill() {
  return R"ENG(
struct KdaChunkScratch {
  explicit KdaChunkScratch(i64) {}
};
void kda_prefill_chunked(const float*, i64, i64, float*, float*, KdaChunkScratch&) {}
)ENG";
}

}  // namespace

std::string engine_kda(const EngineTemplateParams& p) {
  const std::string token = R"ENG(
// Token `row` of a KDA layer's projection, as both paths read it: q and k L2-normalised, the log decay
// g = -softplus(f) (computed stably) and beta = sigmoid(b).
void kda_token(const float* row, i64 hd, float* qn, float* kn, float* g, float& beta) {
  const i64 D = M.head_dim, QW = M.q_width;
  const float *q = row + hd * D, *k = row + QW + hd * D, *f = row + 3 * QW + hd * D;
  float qs = 0.0f, ks = 0.0f;
  for (i64 i = 0; i < D; ++i) qs += q[i] * q[i], ks += k[i] * k[i];
  const float qi = 1.0f / std::sqrt(qs + 1e-6f), ki = 1.0f / std::sqrt(ks + 1e-6f);
  for (i64 i = 0; i < D; ++i) {
    qn[i] = q[i] * qi;
    kn[i] = k[i] * ki;
    g[i] = -(std::max(f[i], 0.0f) + std::log1p(std::exp(-std::fabs(f[i]))));
  }
  beta = 1.0f / (1.0f + std::exp(-row[4 * QW + hd]));
}
)ENG";
  const std::string recurrence = R"ENG(
// Kimi Delta Attention: per (sequence, head), on the slot's D x D state; token by token, or a prefill run of several
// tokens through the chunked kernel when the genome has one.
void kda(const Layer& L, const std::vector<i64>& seq_first, const std::vector<i64>& seq_rows) {
  const i64 D = M.head_dim, W = M.kda_proj_width, QW = M.q_width;
  const i64 seqs = static_cast<i64>(seq_first.size());
  mixed.assign(static_cast<std::size_t>(row_slot.size()) * QW, 0.0f);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  parallel_for(seqs * M.heads, [&](i64 begin, i64 end) {
    std::vector<float> qn(D), kn(D), g(D), delta(D);
    std::unique_ptr<KdaChunkScratch> chunked;  // made at this range's first prefill run
    for (i64 item = begin; item < end; ++item) {
      const i64 s = item / M.heads, hd = item % M.heads, first = seq_first[s];
      float* S = kda_state[row_slot[first]].data() + (L.cache_index * M.heads + hd) * D * D;
      if (KDA_CHUNK > 0 && seq_rows[s] > 1) {
        if (!chunked) chunked = std::make_unique<KdaChunkScratch>(D);
        kda_prefill_chunked(proj.data() + first * W, seq_rows[s], hd, S, mixed.data() + first * QW + hd * D,
                            *chunked);
        continue;
      }
      for (i64 r = first; r < first + seq_rows[s]; ++r) {
        const float* row = proj.data() + r * W;
        const float* v = row + 2 * QW + hd * D;
        float beta = 0.0f;
        kda_token(row, hd, qn.data(), kn.data(), g.data(), beta);
        for (i64 c = 0; c < D; ++c) {
          const float alpha = std::exp(g[c]);
          for (i64 col = 0; col < D; ++col) S[c * D + col] *= alpha;
        }
        for (i64 col = 0; col < D; ++col) delta[col] = 0.0f;
        for (i64 c = 0; c < D; ++c)
          for (i64 col = 0; col < D; ++col) delta[col] += kn[c] * S[c * D + col];
        for (i64 col = 0; col < D; ++col) delta[col] = beta * (v[col] - delta[col]);
        float* o = mixed.data() + r * QW + hd * D;
        for (i64 c = 0; c < D; ++c)
          for (i64 col = 0; col < D; ++col) S[c * D + col] += kn[c] * delta[col];
        for (i64 c = 0; c < D; ++c) {
          const float qc = scale * qn[c];
          for (i64 col = 0; col < D; ++col) o[col] += qc * S[c * D + col];
        }
      }
    }
  });
}
)ENG";
  return token + (p.kda.CHUNK > 0 ? chunked_prefill() : no_chunked_prefill()) + recurrence;
}

}  // namespace kforge::kernels::engine::text
