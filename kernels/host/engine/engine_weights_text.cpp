// The engine template's text (engine_template_text.hpp): how a Linear holds its weights at the genome's precision
// (docs/engines.md, "Precisions"), and the loads that turn them into the kernel's float vectors.
#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine::text {

std::string engine_weight_loads(const EngineTemplateParams& p) {
  // VEC = 1 has plain floats for vectors (the gemm family's vector_helpers); wider VECs GCC vector extensions.
  if (p.gemm.VEC == 1)
    return R"ENG(
inline vf load_w(const float* p) { return *p; }
inline vf load_w(const std::uint16_t* p) {
  const std::uint32_t bits = static_cast<std::uint32_t>(*p) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline vf load_w(const std::int8_t* p) { return static_cast<float>(*p); }
inline void load_bf16_pair(const std::uint16_t* p, vf& even, vf& odd) {
  std::uint32_t bits;
  std::memcpy(&bits, p, sizeof bits);
  const std::uint32_t lo = bits << 16, hi = bits & 0xffff0000u;
  std::memcpy(&even, &lo, sizeof even);
  std::memcpy(&odd, &hi, sizeof odd);
}
)ENG";
  return R"ENG(
// Stored weights widened to VEC floats: bf16 is the top half of a float's bits; int8 converts exactly.
typedef std::uint16_t vbf16 __attribute__((vector_size(VEC * sizeof(std::uint16_t))));
typedef std::uint32_t vbits __attribute__((vector_size(VEC * sizeof(std::uint32_t))));
inline vf load_w(const float* p) { return load(p); }
inline vf load_w(const std::uint16_t* p) {
  vbf16 h;
  std::memcpy(&h, p, sizeof h);
  const vbits bits = __builtin_convertvector(h, vbits) << 16;
  vf f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
// Two vectors of bf16 weights stored interleaved (bf16_position): one load of 2 x VEC halves; the low halves of its
// 32-bit lanes are the first vector's, the high halves the second's, each one integer operation from a float.
inline void load_bf16_pair(const std::uint16_t* p, vf& first, vf& second) {
  vbits bits;
  std::memcpy(&bits, p, sizeof bits);
  const vbits lo = bits << 16, hi = bits & 0xffff0000u;
  std::memcpy(&first, &lo, sizeof first);
  std::memcpy(&second, &hi, sizeof second);
}
// int8: GCC 12 turns __builtin_convertvector of a char vector into one scalar conversion per lane, so the widening
// is spelled out: the x86 sign extension and conversion where the target has them, else a loop GCC vectorises.
inline vf load_w(const std::int8_t* p) {
  vf f;
#if defined(__AVX512F__)
  if constexpr (VEC == 16) {
    const __m512 v = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    std::memcpy(&f, &v, sizeof f);
    return f;
  }
#endif
#if defined(__AVX2__)
  if constexpr (VEC == 8) {
    const __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    std::memcpy(&f, &v, sizeof f);
    return f;
  }
#endif
  float lanes[VEC];
  for (int i = 0; i < VEC; ++i) lanes[i] = static_cast<float>(p[i]);
  std::memcpy(&f, lanes, sizeof f);
  return f;
}
)ENG";
}

std::string engine_linear() {
  return R"ENG(
// ---- a Linear's weights. fp32 without prepack: W [out][in] (Hugging Face's layout). Otherwise W^T cut into
// ceil(out / NR) panels of NR columns, each k-major ([in][NR], zero padded): the layout the gemm kernel packs B
// into, made once at init so that no call packs or transposes a weight. bf16 and int8 weights are always
// prepacked. The harness rounded every matrix to the genome's precision (kInit's buffers), so bf16 keeps the top
// 16 bits of each float exactly, and int8 finds each row's q and scale again: scale = max|row| / 127,
// q = round(x / scale), the values the harness made (the reference serves q * scale, this engine q then * scale).
using Stored = std::conditional_t<WEIGHTS == 1, std::uint16_t, std::conditional_t<WEIGHTS == 2, std::int8_t, float>>;
constexpr bool PANELS = PREPACK || WEIGHTS != 0;
static_assert(WEIGHTS == 0 || !FOLD_NORM, "fold_norm would round gamma x W: the renderer turns it off");

struct Linear {
  i64 in = 0, out = 0;
  std::vector<Stored> w;
  std::vector<float> scale;  // int8: each output column's, panels x NR (0 in the padding); else empty
};

// Where column c (0 <= c < NR) of a panel's row sits. bf16: each pair of vectors (columns 2 v VEC .. 2 (v + 1) VEC)
// interleaved, so that load_bf16_pair widens both with two integer operations; an odd last vector stays as it is.
i64 panel_position(i64 c) {
  if constexpr (WEIGHTS == 1) {
    const i64 v = c / VEC, lane = c % VEC;
    if (v / 2 * 2 + 1 < NV) return v / 2 * 2 * VEC + 2 * lane + v % 2;
  }
  return c;
}

Stored stored(float x, float scale) {
  if constexpr (WEIGHTS == 1) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return static_cast<std::uint16_t>(bits >> 16);
  } else if constexpr (WEIGHTS == 2) {
    return static_cast<std::int8_t>(scale == 0.0f ? 0.0f : std::clamp(std::nearbyint(x / scale), -127.0f, 127.0f));
  } else {
    return x;
  }
}

// Several [out_i][in] tensors concatenated along out (a fused projection), each column scaled by gamma (fold_norm).
Linear make_linear(const std::vector<const float*>& parts, const std::vector<i64>& outs, i64 in, const float* gamma) {
  Linear l;
  l.in = in;
  for (i64 o : outs) l.out += o;
  std::vector<float> rows(static_cast<std::size_t>(l.out * in));
  i64 row = 0;
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (i64 o = 0; o < outs[p]; ++o, ++row)
      for (i64 i = 0; i < in; ++i) rows[row * in + i] = parts[p][o * in + i] * (gamma ? gamma[i] : 1.0f);
  if constexpr (PANELS) {
    const i64 panels = (l.out + NR - 1) / NR;
    std::vector<float> row_scale(static_cast<std::size_t>(panels * NR), 0.0f);
    if constexpr (WEIGHTS == 2) {
      for (i64 o = 0; o < l.out; ++o) {
        float largest = 0.0f;
        for (i64 i = 0; i < in; ++i) largest = std::max(largest, std::abs(rows[o * in + i]));
        row_scale[o] = largest / 127.0f;
      }
      l.scale = row_scale;
    }
    l.w.assign(static_cast<std::size_t>(panels * in * NR), Stored{});
    for (i64 o = 0; o < l.out; ++o)
      for (i64 i = 0; i < in; ++i)
        l.w[(o / NR) * in * NR + i * NR + panel_position(o % NR)] = stored(rows[o * in + i], row_scale[o]);
  } else {
    l.w.assign(rows.begin(), rows.end());
  }
  return l;
}
)ENG";
}

}  // namespace kforge::kernels::engine::text
