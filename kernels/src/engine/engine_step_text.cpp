// The engine template's text (engine_template_text.hpp): one forward step (kStep) and the entry point.
#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine::text {

std::string engine_step() {
  return R"ENG(

// ---- one step
std::vector<float> x, h, inv_rms, proj, mixed, tmp, gu, act, last;
std::vector<i64> row_slot, row_pos;

// h = RMSNorm(x) * gamma, or with fold_norm only the 1/rms of each row (gamma is inside the next GEMM).
const float* norm(const float* src, i64 rows, const std::vector<float>& gamma) {
  const i64 H = M.hidden;
  inv_rms.resize(static_cast<std::size_t>(rows));
  for (i64 r = 0; r < rows; ++r) {
    float ss = 0.0f;
    for (i64 i = 0; i < H; ++i) ss += src[r * H + i] * src[r * H + i];
    inv_rms[r] = 1.0f / std::sqrt(ss / static_cast<float>(H) + static_cast<float>(M.eps));
  }
  if constexpr (FOLD_NORM) return src;
  h.resize(static_cast<std::size_t>(rows * H));
  for (i64 r = 0; r < rows; ++r)
    for (i64 i = 0; i < H; ++i) h[r * H + i] = src[r * H + i] * inv_rms[r] * gamma[i];
  return h.data();
}
const float* norm_scale() { return FOLD_NORM ? inv_rms.data() : nullptr; }

// Several Linears side by side into the columns of one [rows][width] buffer.
void project(const std::vector<Linear>& parts, const float* src, i64 rows, float* out, i64 width) {
  i64 col = 0;
  for (const Linear& l : parts) {
    matmul(l, src, rows, out + col, width, norm_scale(), false);
    col += l.out;
  }
}

// out = W src (+ x as the residual): in the GEMM's output pass, or as a pass of its own.
void residual_matmul(const Linear& l, const float* src, i64 rows) {
  if constexpr (RESIDUAL_EPILOGUE) {
    matmul(l, src, rows, x.data(), M.hidden, nullptr, true);
  } else {
    tmp.resize(static_cast<std::size_t>(rows * M.hidden));
    matmul(l, src, rows, tmp.data(), M.hidden, nullptr, false);
    for (i64 i = 0; i < rows * M.hidden; ++i) x[i] += tmp[i];
  }
}

void rope(float* v, i64 pos) {
  const i64 half = M.head_dim / 2;
  const float* c = rope_cos.data() + pos * half;
  const float* s = rope_sin.data() + pos * half;
  for (i64 i = 0; i < half; ++i) {
    const float a = v[i], b = v[i + half];
    v[i] = a * c[i] - b * s[i];
    v[i + half] = b * c[i] + a * s[i];
  }
}

void attention(const Layer& L, i64 rows) {
  const i64 D = M.head_dim, W = M.proj_width, group = M.heads / M.kv_heads;
  for (i64 r = 0; r < rows; ++r) {  // RoPE, then K and V into the cache at their positions
    float* q = proj.data() + r * W;
    for (i64 hd = 0; hd < M.heads; ++hd) rope(q + hd * D, row_pos[r]);
    float* k = kv_at(false, row_slot[r], L.cache_index, row_pos[r]);
    float* v = kv_at(true, row_slot[r], L.cache_index, row_pos[r]);
    std::memcpy(k, q + M.q_width, static_cast<std::size_t>(M.kv_width) * sizeof(float));
    std::memcpy(v, q + M.q_width + M.kv_width, static_cast<std::size_t>(M.kv_width) * sizeof(float));
    for (i64 hd = 0; hd < M.kv_heads; ++hd) rope(k + hd * D, row_pos[r]);
  }
  mixed.assign(static_cast<std::size_t>(rows * M.q_width), 0.0f);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  parallel_for(rows * M.heads, [&](i64 begin, i64 end) {
    std::vector<float> score(static_cast<std::size_t>(M.context));
    for (i64 item = begin; item < end; ++item) {
      const i64 r = item / M.heads, hd = item % M.heads, g = hd / group, slot = row_slot[r], pos = row_pos[r];
      const float* q = proj.data() + r * W + hd * D;
      float top = -INFINITY;
      for (i64 p = 0; p <= pos; ++p) {  // causal: the positions up to this token's own
        const float* k = kv_at(false, slot, L.cache_index, p) + g * D;
        float dot = 0.0f;
        for (i64 i = 0; i < D; ++i) dot += q[i] * k[i];
        score[p] = dot * scale;
        top = std::max(top, score[p]);
      }
      float sum = 0.0f;
      for (i64 p = 0; p <= pos; ++p) sum += (score[p] = std::exp(score[p] - top));
      float* o = mixed.data() + r * M.q_width + hd * D;
      for (i64 p = 0; p <= pos; ++p) {
        const float wgt = score[p] / sum;
        const float* v = kv_at(true, slot, L.cache_index, p) + g * D;
        for (i64 i = 0; i < D; ++i) o[i] += wgt * v[i];
      }
    }
  });
}

// Kimi Delta Attention: per (sequence, head), token by token, on the slot's D x D state.
void kda(const Layer& L, const std::vector<i64>& seq_first, const std::vector<i64>& seq_rows) {
  const i64 D = M.head_dim, W = M.kda_proj_width, QW = M.q_width;
  const i64 seqs = static_cast<i64>(seq_first.size());
  mixed.assign(static_cast<std::size_t>(row_slot.size()) * QW, 0.0f);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  parallel_for(seqs * M.heads, [&](i64 begin, i64 end) {
    std::vector<float> qn(D), kn(D), alpha(D), delta(D);
    for (i64 item = begin; item < end; ++item) {
      const i64 s = item / M.heads, hd = item % M.heads, first = seq_first[s];
      float* S = kda_state[row_slot[first]].data() + (L.cache_index * M.heads + hd) * D * D;
      for (i64 r = first; r < first + seq_rows[s]; ++r) {
        const float* row = proj.data() + r * W;
        const float *q = row + hd * D, *k = row + QW + hd * D, *v = row + 2 * QW + hd * D, *f = row + 3 * QW + hd * D;
        float qs = 0.0f, ks = 0.0f;
        for (i64 i = 0; i < D; ++i) qs += q[i] * q[i], ks += k[i] * k[i];
        const float qi = 1.0f / std::sqrt(qs + 1e-6f), ki = 1.0f / std::sqrt(ks + 1e-6f);
        for (i64 i = 0; i < D; ++i) {
          qn[i] = q[i] * qi;
          kn[i] = k[i] * ki;
          const float fi = f[i];  // alpha = exp(-softplus(f)), computed stably
          alpha[i] = std::exp(-(std::max(fi, 0.0f) + std::log1p(std::exp(-std::fabs(fi)))));
        }
        const float beta = 1.0f / (1.0f + std::exp(-row[4 * QW + hd]));
        for (i64 c = 0; c < D; ++c)
          for (i64 col = 0; col < D; ++col) S[c * D + col] *= alpha[c];
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

void step(const std::int64_t* args, void* const* buffers) {
  const i64 S = args[1], N = args[2], H = M.hidden;
  const auto* desc = static_cast<const std::int64_t*>(buffers[0]);
  const auto* tokens = static_cast<const std::int32_t*>(buffers[1]);
  auto* logits = static_cast<float*>(buffers[2]);
  auto* seconds = static_cast<double*>(buffers[3]);
  for (int op = 0; op < kOps; ++op) seconds[op] = 0.0;
  auto t0 = clock_type::now();
  auto lap = [&](int op) {
    const auto t1 = clock_type::now();
    seconds[op] += std::chrono::duration<double>(t1 - t0).count();
    t0 = t1;
  };
  // Sequences: a refused one (bad slot, position or token) poisons every logit, which every check fails.
  i64 total = 0;
  bool bad = S < 1;
  for (i64 s = 0; s < S && !bad; ++s) {
    const i64 slot = desc[3 * s], start = desc[3 * s + 1], count = desc[3 * s + 2];
    bad = slot < 0 || slot >= M.slots || count < 1 || start < 0 || start + count > M.context ||
          (start != 0 && start != slot_length[slot]);
    total += count;
  }
  bad = bad || total != N;
  for (i64 i = 0; i < N && !bad; ++i) bad = tokens[i] < 0 || tokens[i] >= M.vocab;
  if (bad) {
    for (i64 i = 0; i < std::max<i64>(S, 0) * M.vocab; ++i) logits[i] = NAN;
    return;
  }
  row_slot.resize(static_cast<std::size_t>(N));
  row_pos.resize(static_cast<std::size_t>(N));
  std::vector<i64> seq_first(static_cast<std::size_t>(S)), seq_rows(static_cast<std::size_t>(S));
  for (i64 s = 0, r = 0; s < S; ++s) {
    const i64 slot = desc[3 * s], start = desc[3 * s + 1], count = desc[3 * s + 2];
    if (start == 0) reset_slot(slot);
    reserve_positions(slot, start + count);
    seq_first[s] = r;
    seq_rows[s] = count;
    for (i64 t = 0; t < count; ++t, ++r) {
      row_slot[r] = slot;
      row_pos[r] = start + t;
    }
    slot_length[slot] = start + count;
  }
  x.resize(static_cast<std::size_t>(N * H));
  for (i64 r = 0; r < N; ++r) std::memcpy(x.data() + r * H, embed.data() + tokens[r] * H, H * sizeof(float));
  lap(kEmbed);
  for (const Layer& L : layers) {
    const float* src = norm(x.data(), N, L.in_gamma);
    lap(kNorm);
    const i64 width = L.attention ? M.proj_width : M.kda_proj_width;
    proj.resize(static_cast<std::size_t>(N * width));
    project(L.in_proj, src, N, proj.data(), width);
    lap(kQkv);
    if (L.attention) {
      attention(L, N);
      lap(kAttention);
    } else {
      kda(L, seq_first, seq_rows);
      lap(kKda);
    }
    residual_matmul(L.o, mixed.data(), N);
    lap(kOProj);
    src = norm(x.data(), N, L.post_gamma);
    lap(kNorm);
    gu.resize(static_cast<std::size_t>(N * 2 * M.mlp));
    project(L.gate_up, src, N, gu.data(), 2 * M.mlp);
    act.resize(static_cast<std::size_t>(N * M.mlp));
    for (i64 r = 0; r < N; ++r)
      for (i64 j = 0; j < M.mlp; ++j) {
        const float g = gu[r * 2 * M.mlp + j], u = gu[r * 2 * M.mlp + M.mlp + j];
        act[r * M.mlp + j] = g / (1.0f + std::exp(-g)) * u;  // SiLU(gate) * up
      }
    residual_matmul(L.down, act.data(), N);
    lap(kMlp);
  }
  last.resize(static_cast<std::size_t>(S * H));  // the last token of each sequence
  for (i64 s = 0; s < S; ++s)
    std::memcpy(last.data() + s * H, x.data() + (seq_first[s] + seq_rows[s] - 1) * H, H * sizeof(float));
  const float* src = norm(last.data(), S, final_gamma);
  lap(kNorm);
  matmul(lm_head, src, S, logits, M.vocab, norm_scale(), false);
  lap(kLmHead);
}

}  // namespace eng

extern "C" void kforge_engine(const std::int64_t* args, void* const* buffers) {
  if (args[0] == 0)
    eng::init(args, buffers);
  else if (args[0] == 1)
    eng::step(args, buffers);
}
)ENG";
}

std::string engine_body() { return engine_setup() + engine_step(); }

}  // namespace kforge::kernels::engine::text
