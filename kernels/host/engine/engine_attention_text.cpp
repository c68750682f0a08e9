// The engine template's text (engine_template_text.hpp): the vector math (exp, sums), RoPE and attention over the
// KV cache.
#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine::text {

std::string engine_attention() {
  return R"ENG(
// Attention's and the MLP's vectors: 8 floats whatever the genome's VEC (head dimensions are multiples of 8; a
// 16-lane sum per key costs more than it saves at D = 32).
constexpr int AV = 8;
typedef float av __attribute__((vector_size(AV * sizeof(float))));
typedef std::int32_t ai __attribute__((vector_size(AV * sizeof(std::int32_t))));
inline av aload(const float* p) { av v; std::memcpy(&v, p, sizeof v); return v; }
inline void astore(float* p, av v) { std::memcpy(p, &v, sizeof v); }
inline av splat(float f) { return av{} + f; }

// The lanes of one vector added as a tree (a plain left-to-right float loop is one dependent add after another).
inline float hsum(av v) {
  float lanes[AV];
  std::memcpy(lanes, &v, sizeof lanes);
#pragma GCC unroll 8
  for (int w = AV / 2; w >= 1; w /= 2)
#pragma GCC unroll 8
    for (int l = 0; l < w; ++l) lanes[l] += lanes[l + w];
  return lanes[0];
}

// e^x for 8 floats at once, Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2, a degree-6 polynomial for e^r, 2^n
// through the exponent bits; within 2 ulp of std::exp. The softmax of every key and the SiLU of every MLP
// activation need one exp each, and the scalar libm call was a tenth of a decode step. Below -87.3 the result
// is 0 (std::exp's is a subnormal there), above 88 +inf, NaN stays NaN.
inline av vexp(av x) {
  const ai over = x > 88.0f, under = x < -87.33654475f, nan = x != x;
  av c = over ? splat(88.0f) : x;
  c = under ? splat(-87.33654475f) : c;
  const av fx = c * 1.44269504088896341f + 0.5f;
  ai n = __builtin_convertvector(fx, ai);  // truncation; then floor for negative fx
  n = __builtin_convertvector(n, av) > fx ? n - 1 : n;
  const av fn = __builtin_convertvector(n, av);
  const av r = c - fn * 0.693359375f + fn * 2.12194440e-4f;
  av y = splat(1.9875691500e-4f);
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  const ai bits = (n + 127) << 23;
  av scale2;
  std::memcpy(&scale2, &bits, sizeof scale2);
  y = y * scale2;
  y = over ? splat(INFINITY) : y;
  y = under ? splat(0.0f) : y;
  return nan ? x : y;
}

// v[i] = e^(v[i] - shift) for i < n; returns their sum.
inline float exp_shifted(float* v, i64 n, float shift) {
  av sum = {};
  i64 i = 0;
  for (; i + AV <= n; i += AV) {
    const av e = vexp(aload(v + i) - shift);
    astore(v + i, e);
    sum += e;
  }
  float total = hsum(sum);
  for (; i < n; ++i) total += (v[i] = std::exp(v[i] - shift));
  return total;
}

// out[j] = SiLU(gate[j]) * up[j] = gate / (1 + e^-gate) * up, for j < n.
inline void silu_mul(const float* gate, const float* up, float* out, i64 n) {
  i64 j = 0;
  for (; j + AV <= n; j += AV) {
    const av g = aload(gate + j);
    astore(out + j, g / (1.0f + vexp(-g)) * aload(up + j));
  }
  for (; j < n; ++j) out[j] = gate[j] / (1.0f + std::exp(-gate[j])) * up[j];
}

// Qwen3's per-head RMSNorm of q and k, before RoPE: v = v / sqrt(mean(v^2) + eps) * gamma over one head.
void head_norm(float* v, const float* gamma) {
  float ss = 0.0f;
  for (i64 i = 0; i < M.head_dim; ++i) ss += v[i] * v[i];
  const float inv = 1.0f / std::sqrt(ss / static_cast<float>(M.head_dim) + static_cast<float>(M.eps));
  for (i64 i = 0; i < M.head_dim; ++i) v[i] = v[i] * inv * gamma[i];
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

// One query head against the positions 0..pos of its key/value head g in a slot's cache: softmax(q K^T * scale) V
// into o. DT: the head dimension when known at compile time (q, the accumulators and every dot product then
// live in vector registers), 0 for any other (the same steps over runtime lengths).
template <int DT>
void attend(const float* q, i64 slot, int layer, i64 g, i64 pos, float scale, float* score, float* o) {
  constexpr bool UNROLLED = DT > 0 && DT % AV == 0;
  constexpr int NVD = UNROLLED ? DT / AV : 1;
  const i64 D = UNROLLED ? DT : M.head_dim;
  float top = -INFINITY;
  av qv[NVD];
  if constexpr (UNROLLED)
    for (int v = 0; v < NVD; ++v) qv[v] = aload(q + v * AV) * scale;
  for (i64 p = 0; p <= pos; ++p) {  // causal: the positions up to this token's own
    const float* k = kv_at(false, slot, layer, p) + g * D;
    if constexpr (UNROLLED) {
      av s0 = qv[0] * aload(k), s1 = {};
#pragma GCC unroll 16
      for (int v = 1; v < NVD; ++v) (v % 2 ? s1 : s0) += qv[v] * aload(k + v * AV);
      score[p] = hsum(s0 + s1);
    } else {
      av s0 = {};
      i64 i = 0;
      for (; i + AV <= D; i += AV) s0 += aload(q + i) * aload(k + i);
      float dot = hsum(s0);
      for (; i < D; ++i) dot += q[i] * k[i];
      score[p] = dot * scale;
    }
    top = std::max(top, score[p]);
  }
  const float inv = 1.0f / exp_shifted(score, pos + 1, top);
  if constexpr (UNROLLED) {
    av acc[NVD] = {};
    for (i64 p = 0; p <= pos; ++p) {
      const float w = score[p];
      const float* v = kv_at(true, slot, layer, p) + g * D;
#pragma GCC unroll 16
      for (int j = 0; j < NVD; ++j) acc[j] += w * aload(v + j * AV);
    }
    for (int j = 0; j < NVD; ++j) astore(o + j * AV, acc[j] * inv);
  } else {
    float* acc = score + M.context;  // D floats after the scores
    for (i64 i = 0; i < D; ++i) acc[i] = 0.0f;
    for (i64 p = 0; p <= pos; ++p) {
      const float w = score[p];
      const float* v = kv_at(true, slot, layer, p) + g * D;
      for (i64 i = 0; i < D; ++i) acc[i] += w * v[i];
    }
    for (i64 i = 0; i < D; ++i) o[i] = acc[i] * inv;
  }
}

void attention(const Layer& L, i64 rows) {
  const i64 D = M.head_dim, W = M.proj_width, group = M.heads / M.kv_heads;
  for (i64 r = 0; r < rows; ++r) {  // (Qwen3's q/k norms,) RoPE, then K and V into the cache at their positions
    float* q = proj.data() + r * W;
    for (i64 hd = 0; hd < M.heads; ++hd) {
      if (M.qk_norm) head_norm(q + hd * D, L.q_norm.data());
      rope(q + hd * D, row_pos[r]);
    }
    float* k = kv_at(false, row_slot[r], L.cache_index, row_pos[r]);
    float* v = kv_at(true, row_slot[r], L.cache_index, row_pos[r]);
    std::memcpy(k, q + M.q_width, static_cast<std::size_t>(M.kv_width) * sizeof(float));
    std::memcpy(v, q + M.q_width + M.kv_width, static_cast<std::size_t>(M.kv_width) * sizeof(float));
    for (i64 hd = 0; hd < M.kv_heads; ++hd) {
      if (M.qk_norm) head_norm(k + hd * D, L.k_norm.data());
      rope(k + hd * D, row_pos[r]);
    }
  }
  mixed.resize(static_cast<std::size_t>(rows * M.q_width));
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  // Per thread: the scores of one (row, head), then D floats (the runtime-D path's accumulators). Each thread's
  // part starts on its own 128-byte line pair (+32 floats of gap): both threads write theirs for every key, and a
  // cache line shared between them would bounce from core to core on each write.
  const i64 scratch = (M.context + D + 31) / 32 * 32 + 32;
  score.resize(static_cast<std::size_t>(THREADS * scratch));
  // Items dealt out by row (item % rows), so that each thread gets every other row of a prefill chunk: equal
  // shares of the causal work, and outputs a row apart.
  parallel_each(rows * M.heads, [&](i64 item) {
    const i64 r = item % rows, hd = item / rows, g = hd / group;
    const float* q = proj.data() + r * W + hd * D;
    float* o = mixed.data() + r * M.q_width + hd * D;
    float* part = score.data() + (item % THREADS) * scratch;  // this thread's
    const auto attend_d = D == 32 ? attend<32> : D == 64 ? attend<64> : D == 128 ? attend<128> : attend<0>;
    attend_d(q, row_slot[r], L.cache_index, g, row_pos[r], scale, part, o);
  });
}
)ENG";
}

}  // namespace kforge::kernels::engine::text
