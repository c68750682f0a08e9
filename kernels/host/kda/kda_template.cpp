#include "kda/kda_template.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <variant>
#include <vector>

namespace kforge::kernels::host {
namespace {

const std::vector<std::string> kParams = {"CHUNK", "DV_TILE", "UNROLL", "VEC"};

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

void require_known_and_present(const jobs::Genome& genome) {
  std::vector<std::string> missing, unknown;
  for (const auto& name : kParams)
    if (!genome.has(name)) missing.push_back(name);
  for (const auto& [name, value] : genome.params)
    if (std::find(kParams.begin(), kParams.end(), name) == kParams.end()) unknown.push_back(name);
  std::string problems;
  if (!missing.empty()) problems += "missing parameter(s): " + join(missing);
  if (!unknown.empty())
    problems += (problems.empty() ? "" : "; ") + std::string("unknown parameter(s): ") + join(unknown);
  if (!problems.empty())
    throw std::invalid_argument("kda host template: " + problems + " (expected: " + join(kParams) + ")");
}

int int_param(const jobs::Genome& genome, const std::string& name, std::int64_t lo, std::int64_t hi) {
  const auto* value = std::get_if<std::int64_t>(&genome.params.at(name));
  if (value == nullptr) throw std::invalid_argument("kda host template: parameter " + name + " must be an integer");
  if (*value < lo || *value > hi)
    throw std::invalid_argument("kda host template: parameter " + name + "=" + std::to_string(*value) +
                                " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(*value);
}

void check_value_rules(const KdaTemplateParams& p) {
  if (p.CHUNK != 16 && p.CHUNK != 32 && p.CHUNK != 64)
    throw std::invalid_argument("kda host template: CHUNK=" + std::to_string(p.CHUNK) + " must be 16, 32 or 64");
  if (p.VEC != 1 && p.VEC != 2 && p.VEC != 4 && p.VEC != 8 && p.VEC != 16)
    throw std::invalid_argument("kda host template: VEC=" + std::to_string(p.VEC) + " must be 1, 2, 4, 8 or 16");
  if (p.DV_TILE < 1 || p.DV_TILE > 1024 || p.UNROLL < 1 || p.UNROLL > 16)
    throw std::invalid_argument("kda host template: DV_TILE must be in [1, 1024] and UNROLL in [1, 16]");
}

std::string replace_all(std::string text, std::string_view key, const std::string& value) {
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

// The vector type and the two inner loops every step is built from: axpy along value columns, dot along keys.
std::string vector_helpers(int vec) {
  std::string t = vec == 1 ? "typedef float vf;  // VEC = 1: the \"vector\" is a plain float\n"
                             "inline vf splat(float x) { return x; }\n"
                             "inline float lane_sum(vf v) { return v; }\n"
                           : "typedef float vf __attribute__((vector_size(VEC * sizeof(float))));  // GCC vectors\n"
                             "inline vf splat(float x) { vf v; for (int l = 0; l < VEC; ++l) v[l] = x; return v; }\n"
                             "inline float lane_sum(vf v) { float s = 0.f; for (int l = 0; l < VEC; ++l) s += v[l]; "
                             "return s; }\n";
  return t + R"(// memcpy compiles to one unaligned vector move and is valid for any address.
inline vf load(const float* p) { vf v; std::memcpy(&v, p, sizeof v); return v; }
inline void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }

// y[0, n) += a * x[0, n): UNROLL vectors per step, then single vectors, then scalars.
inline void axpy(float* __restrict y, float a, const float* __restrict x, int n) {
  const vf av = splat(a);
  int c = 0;
  for (; c + VEC * UNROLL <= n; c += VEC * UNROLL)
    for (int u = 0; u < UNROLL; ++u) store(y + c + u * VEC, load(y + c + u * VEC) + av * load(x + c + u * VEC));
  for (; c + VEC <= n; c += VEC) store(y + c, load(y + c) + av * load(x + c));
  for (; c < n; ++c) y[c] += a * x[c];
}

// sum_c a[c] * b[c] with UNROLL independent vector accumulators.
inline float dot(const float* a, const float* b, int n) {
  vf acc[UNROLL];
  for (int u = 0; u < UNROLL; ++u) acc[u] = splat(0.f);
  int c = 0;
  for (; c + VEC * UNROLL <= n; c += VEC * UNROLL)
    for (int u = 0; u < UNROLL; ++u) acc[u] += load(a + c + u * VEC) * load(b + c + u * VEC);
  for (; c + VEC <= n; c += VEC) acc[0] += load(a + c) * load(b + c);
  float s = 0.f;
  for (int u = 0; u < UNROLL; ++u) s += lane_sum(acc[u]);
  for (; c < n; ++c) s += a[c] * b[c];
  return s;
}

)";
}

}  // namespace

KdaTemplateParams kda_params_from_genome(const jobs::Genome& genome) {
  require_known_and_present(genome);
  KdaTemplateParams p;
  p.CHUNK = int_param(genome, "CHUNK", 16, 64);
  p.DV_TILE = int_param(genome, "DV_TILE", 1, 1024);
  p.UNROLL = int_param(genome, "UNROLL", 1, 16);
  p.VEC = int_param(genome, "VEC", 1, 16);
  check_value_rules(p);
  return p;
}

std::string render_kda_source(const KdaTemplateParams& p) {
  check_value_rules(p);
  std::string head = R"(// kforge kda candidate for the host backend, rendered from the genome
//   CHUNK=@CHUNK@ DV_TILE=@DV_TILE@ UNROLL=@UNROLL@ VEC=@VEC@
// Kimi Delta Attention forward, fp32: q, k, v, g, o [B][T][H][D], beta [B][T][H], g = log(alpha) <= 0.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

namespace {

constexpr int CHUNK = @CHUNK@;  // tokens per chunk
constexpr int DV_TILE = @DV_TILE@;  // value columns per state tile
constexpr int UNROLL = @UNROLL@;  // vectors per inner-loop step
constexpr int VEC = @VEC@;  // floats per SIMD vector
using index_t = std::ptrdiff_t;
inline int min_int(int a, int b) { return a < b ? a : b; }

)";
  head = replace_all(head, "@CHUNK@", std::to_string(p.CHUNK));
  head = replace_all(head, "@DV_TILE@", std::to_string(p.DV_TILE));
  head = replace_all(head, "@UNROLL@", std::to_string(p.UNROLL));
  head = replace_all(head, "@VEC@", std::to_string(p.VEC));
  return head + vector_helpers(p.VEC) + kda_template_body();
}

}  // namespace kforge::kernels::host
