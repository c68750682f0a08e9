#include "gemm/gemm_template_text.hpp"

#include <string_view>
#include <utility>

namespace kforge::kernels::host::text {
namespace {

std::string replace_all(std::string text, std::string_view key, const std::string& value) {
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

// The loop over one block dimension and its first body line: 'j' (NC), 'p' (KC) or 'i' (MC).
std::pair<std::string, std::string> block_loop(char dim) {
  switch (dim) {
    case 'j':
      return {"for (int jc = 0; jc < N; jc += NC) {\n", "const int nc = min_int(NC, N - jc);\n"};
    case 'p':
      return {"for (int pc = 0; pc < K; pc += KC) {\n", "const int kc = min_int(KC, K - pc);\n"};
    default:
      return {"for (int ic = 0; ic < M; ic += MC) {\n", "const int mc = min_int(MC, M - ic);\n"};
  }
}

void indent_lines(std::string& out, const std::string& lines, int depth) {
  std::string_view rest = lines;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    out += std::string(2 * static_cast<std::size_t>(depth), ' ');
    out += rest.substr(0, end);
    out += '\n';
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  }
}

}  // namespace

std::string header(const GemmTemplateParams& p) {
  std::string t = R"(// kforge gemm candidate for the host backend, rendered from the genome
//   MC=@MC@ NC=@NC@ KC=@KC@ MR=@MR@ NR=@NR@ VEC=@VEC@ UNROLL=@UNROLL@ PACK=@PACK@ LOOP_ORDER=@ORDER@
// C = A * B in fp32, row-major: A is M x K (leading dimension lda), B is K x N (ldb), C is M x N (ldc).
// Blocks of NC columns (j), KC depth (p) and MC rows (i) are looped in the order @ORDER@; inside a block an
// MR x NR register tile sweeps C, holding NR / VEC vectors of accumulators per tile row.
#include <cstddef>
#include <cstring>

namespace {

constexpr int MC = @MC@, NC = @NC@, KC = @KC@;  // cache blocking
constexpr int MR = @MR@, NR = @NR@;  // register tile
constexpr int VEC = @VEC@;  // floats per SIMD vector
constexpr int NV = NR / VEC;  // vectors per tile row
constexpr int UNROLL = @UNROLL@;  // unroll of the micro-kernel's k loop

using index_t = std::ptrdiff_t;  // offsets in 64 bits: i * lda may exceed 2^31
inline int min_int(int a, int b) { return a < b ? a : b; }

)";
  t = replace_all(t, "@MC@", std::to_string(p.MC));
  t = replace_all(t, "@NC@", std::to_string(p.NC));
  t = replace_all(t, "@KC@", std::to_string(p.KC));
  t = replace_all(t, "@MR@", std::to_string(p.MR));
  t = replace_all(t, "@NR@", std::to_string(p.NR));
  t = replace_all(t, "@VEC@", std::to_string(p.VEC));
  t = replace_all(t, "@UNROLL@", std::to_string(p.UNROLL));
  t = replace_all(t, "@PACK@", p.PACK ? "1" : "0");
  return replace_all(t, "@ORDER@", p.LOOP_ORDER);
}

std::string vector_helpers(int vec) {
  const std::string vector_type =
      vec == 1 ? R"(// VEC = 1: the "vector" is a plain float.
typedef float vf;
inline vf load(const float* p) { return *p; }
inline void store(float* p, vf v) { *p = v; }
)"
               : R"(// VEC floats as one SIMD vector (GCC vector extensions). memcpy compiles to a single unaligned
// vector move and is valid for any address.
typedef float vf __attribute__((vector_size(VEC * sizeof(float))));
inline vf load(const float* p) { vf v; std::memcpy(&v, p, sizeof v); return v; }
inline void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
)";
  return vector_type + R"(
// One k step of the register tile: NV vectors of B's row k; tile row r adds A[r][k] * each of them.
// Every loop has compile-time bounds and is fully unrolled, so acc[][] stays in vector registers.
__attribute__((always_inline)) inline void tile_step(vf (&acc)[MR][NV], const float* __restrict a,
                                                     index_t a_row_stride, const float* __restrict b) {
  vf bv[NV];
#pragma GCC unroll 64
  for (int v = 0; v < NV; ++v) bv[v] = load(b + v * VEC);
#pragma GCC unroll 64
  for (int r = 0; r < MR; ++r) {
    const float ar = a[r * a_row_stride];
#pragma GCC unroll 64
    for (int v = 0; v < NV; ++v) acc[r][v] += ar * bv[v];
  }
}

// The first depth block overwrites C (its old contents are never read), later blocks add to it.
__attribute__((always_inline)) inline void tile_store(const vf (&acc)[MR][NV], float* __restrict c, index_t ldc,
                                                      bool overwrite) {
#pragma GCC unroll 64
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 64
    for (int v = 0; v < NV; ++v) {
      float* p = c + r * ldc + v * VEC;
      store(p, overwrite ? acc[r][v] : acc[r][v] + load(p));
    }
  }
}
)";
}

std::string packing() {
  return R"(
// Packed panels, 64-byte aligned and reused by every call (kforge_gemm runs on one thread at a time).
// Rows and columns are rounded up to whole MR / NR panels; the padding is zero-filled by the packers.
constexpr int MC_PANELS = (MC + MR - 1) / MR;
constexpr int NC_PANELS = (NC + NR - 1) / NR;
alignas(64) float packed_a[MC_PANELS * MR * KC];
alignas(64) float packed_b[NC_PANELS * NR * KC];

// A block (mc x kc) -> MR-row panels, each stored k-major: MR consecutive floats per k.
void pack_a(int mc, int kc, const float* __restrict a, index_t lda, float* __restrict out) {
  for (int i = 0; i < mc; i += MR) {
    const int rows = min_int(MR, mc - i);
    for (int k = 0; k < kc; ++k) {
      for (int r = 0; r < rows; ++r) out[r] = a[(i + r) * lda + k];
      for (int r = rows; r < MR; ++r) out[r] = 0.0f;
      out += MR;
    }
  }
}

// B block (kc x nc) -> NR-column panels, each stored k-major: NR consecutive floats per k.
void pack_b(int kc, int nc, const float* __restrict b, index_t ldb, float* __restrict out) {
  for (int j = 0; j < nc; j += NR) {
    const int cols = min_int(NR, nc - j);
    for (int k = 0; k < kc; ++k) {
      const float* row = b + k * ldb + j;
      for (int c = 0; c < cols; ++c) out[c] = row[c];
      for (int c = cols; c < NR; ++c) out[c] = 0.0f;
      out += NR;
    }
  }
}
)";
}

std::string packed_micro_kernel() {
  return R"(
// MR x NR tile of C from one A panel (MR floats per k) and one B panel (NR floats per k).
inline void micro_kernel(int kc, const float* __restrict ap, const float* __restrict bp, float* __restrict c,
                         index_t ldc, bool overwrite) {
  vf acc[MR][NV] = {};
  int k = 0;
  for (; k + UNROLL <= kc; k += UNROLL) {
#pragma GCC unroll 64
    for (int u = 0; u < UNROLL; ++u) tile_step(acc, ap + (k + u) * MR, 1, bp + (k + u) * NR);
  }
  for (; k < kc; ++k) tile_step(acc, ap + k * MR, 1, bp + k * NR);
  tile_store(acc, c, ldc, overwrite);
}

// Fewer than MR rows or NR columns left: the zero-padded panels let the full micro-kernel run into a local
// tile, of which only the valid mr x nr part reaches C.
__attribute__((noinline)) void edge_tile(int mr, int nr, int kc, const float* ap, const float* bp, float* c,
                                         index_t ldc, bool overwrite) {
  alignas(64) float tile[MR * NR];
  micro_kernel(kc, ap, bp, tile, NR, true);
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nr; ++j) c[r * ldc + j] = overwrite ? tile[r * NR + j] : c[r * ldc + j] + tile[r * NR + j];
}
)";
}

std::string packed_macro_kernel() {
  return R"(
// One block: packed A (mc x kc) times packed B (kc x nc) into C, tile by tile.
void macro_kernel(int mc, int nc, int kc, const float* __restrict ap, const float* __restrict bp,
                  float* __restrict c, index_t ldc, bool overwrite) {
  for (int j = 0; j < nc; j += NR) {
    const int nr = min_int(NR, nc - j);
    for (int i = 0; i < mc; i += MR) {
      const int mr = min_int(MR, mc - i);
      const float* a_panel = ap + static_cast<index_t>(i) * kc;  // panel i / MR: MR * kc floats
      const float* b_panel = bp + static_cast<index_t>(j) * kc;  // panel j / NR: NR * kc floats
      if (mr == MR && nr == NR)
        micro_kernel(kc, a_panel, b_panel, c + i * ldc + j, ldc, overwrite);
      else
        edge_tile(mr, nr, kc, a_panel, b_panel, c + i * ldc + j, ldc, overwrite);
    }
  }
}
)";
}

std::string direct_micro_kernel() {
  return R"(
// MR x NR tile of C read straight from A (row stride lda) and B (row stride ldb).
inline void micro_kernel(int kc, const float* __restrict a, index_t lda, const float* __restrict b, index_t ldb,
                         float* __restrict c, index_t ldc, bool overwrite) {
  vf acc[MR][NV] = {};
  int k = 0;
  for (; k + UNROLL <= kc; k += UNROLL) {
#pragma GCC unroll 64
    for (int u = 0; u < UNROLL; ++u) tile_step(acc, a + k + u, lda, b + (k + u) * ldb);
  }
  for (; k < kc; ++k) tile_step(acc, a + k, lda, b + k * ldb);
  tile_store(acc, c, ldc, overwrite);
}

// Fewer than MR rows or NR columns left: plain loops, which never touch memory outside A, B or C.
__attribute__((noinline)) void edge_tile(int mr, int nr, int kc, const float* a, index_t lda, const float* b,
                                         index_t ldb, float* c, index_t ldc, bool overwrite) {
  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nr; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < kc; ++k) sum += a[r * lda + k] * b[k * ldb + j];
      c[r * ldc + j] = overwrite ? sum : c[r * ldc + j] + sum;
    }
}
)";
}

std::string direct_macro_kernel() {
  return R"(
// One block of A (mc x kc) times B (kc x nc) into C, tile by tile, without packing.
void macro_kernel(int mc, int nc, int kc, const float* a, index_t lda, const float* b, index_t ldb, float* c,
                  index_t ldc, bool overwrite) {
  for (int j = 0; j < nc; j += NR) {
    const int nr = min_int(NR, nc - j);
    for (int i = 0; i < mc; i += MR) {
      const int mr = min_int(MR, mc - i);
      if (mr == MR && nr == NR)
        micro_kernel(kc, a + i * lda, lda, b + j, ldb, c + i * ldc + j, ldc, overwrite);
      else
        edge_tile(mr, nr, kc, a + i * lda, lda, b + j, ldb, c + i * ldc + j, ldc, overwrite);
    }
  }
}
)";
}

std::string entry_point(const GemmTemplateParams& p) {
  std::string out = R"(
}  // namespace

extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
                            int ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {  // an empty product: C = 0
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) C[i * static_cast<index_t>(ldc) + j] = 0.0f;
    return;
  }
  // Block loops in the order )" +
                    p.LOOP_ORDER + R"(. The first depth block (pc == 0) overwrites C, later ones add.
)";
  bool j_open = false, p_open = false, i_open = false;
  int depth = 1;
  for (char dim : p.LOOP_ORDER) {
    const auto [loop, bound] = block_loop(dim);
    indent_lines(out, loop, depth);
    indent_lines(out, bound, ++depth);
    j_open |= dim == 'j';
    p_open |= dim == 'p';
    i_open |= dim == 'i';
    // Pack each operand as soon as the loops that select its block are open.
    if (p.PACK && dim != 'i' && j_open && p_open)
      indent_lines(out, "pack_b(kc, nc, B + pc * static_cast<index_t>(ldb) + jc, ldb, packed_b);\n", depth);
    if (p.PACK && dim != 'j' && i_open && p_open)
      indent_lines(out, "pack_a(mc, kc, A + ic * static_cast<index_t>(lda) + pc, lda, packed_a);\n", depth);
  }
  const std::string c_block = "C + ic * static_cast<index_t>(ldc) + jc";
  indent_lines(out,
               p.PACK ? "macro_kernel(mc, nc, kc, packed_a, packed_b, " + c_block + ", ldc, pc == 0);\n"
                      : "macro_kernel(mc, nc, kc, A + ic * static_cast<index_t>(lda) + pc, lda,\n"
                        "             B + pc * static_cast<index_t>(ldb) + jc, ldb, " +
                            c_block + ", ldc, pc == 0);\n",
               depth);
  for (--depth; depth >= 1; --depth) indent_lines(out, "}\n", depth);
  return out + "}\n";
}

}  // namespace kforge::kernels::host::text
