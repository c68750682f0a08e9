// The engine template's text (engine_template_text.hpp): the step's buffers, norms and projections, one forward
// step (kStep) and the entry point.
#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine::text {

std::string engine_step_buffers() {
  return R"ENG(

// ---- one step
std::vector<float> x, h, inv_rms, proj, mixed, tmp, gu, act, last, score;
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
)ENG";
}

std::string engine_step() {
  return R"ENG(
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
    if (!L.in_bias.empty())
      for (i64 r = 0; r < N; ++r)
        for (i64 c = 0; c < width; ++c) proj[r * width + c] += L.in_bias[c];
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
    parallel_for(N, [&](i64 r0, i64 r1) {  // one exp per element: split like a GEMM
      for (i64 r = r0; r < r1; ++r) silu_mul(&gu[r * 2 * M.mlp], &gu[r * 2 * M.mlp + M.mlp], &act[r * M.mlp], M.mlp);
    });
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

std::string engine_body(const EngineTemplateParams& p) {
  return engine_threads() + engine_weight_loads(p) + engine_linear() + engine_projections() + engine_setup() +
         engine_step_buffers() + engine_attention() + engine_kda(p) + engine_step();
}

}  // namespace kforge::kernels::engine::text
