#pragma once
// The kda family's C++ source template for the host backend: the chunked (WY-style) form of the gated delta
// rule with per-channel decay, as kernels/cuda/families/kda/kda_source.cpp derives it, on one CPU core.
#include <string>

#include "kforge/jobs/genome.hpp"

namespace kforge::kernels::host {

struct KdaTemplateParams {
  int CHUNK = 0;    // tokens per chunk: 16, 32 or 64 (intra-chunk matrices are CHUNK x CHUNK)
  int DV_TILE = 0;  // value columns per tile of the state the chunk's updates sweep (1..1024)
  int UNROLL = 1;   // vectors per step of the inner loops (1..16)
  int VEC = 1;      // SIMD width in floats, GCC vector extensions: 1, 2, 4, 8 or 16
};

// Throws std::invalid_argument naming every missing or unknown parameter, or the first bad value.
KdaTemplateParams kda_params_from_genome(const jobs::Genome& genome);

// C++17 source exporting extern "C" kforge_kda(B, H, T, D, q, k, v, g, beta, o); correct for any T and D.
std::string render_kda_source(const KdaTemplateParams& p);

// The algorithm's text after the constants and vector helpers (kda_template_text.cpp).
const char* kda_template_body();

}  // namespace kforge::kernels::host
