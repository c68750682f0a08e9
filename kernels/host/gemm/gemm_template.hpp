#pragma once
// The gemm family's C++ source template for the host backend: a BLIS-style blocked GEMM whose blocking,
// register tile, SIMD width, unroll, packing and loop order come from the genome.
#include <string>

#include "kforge/jobs/genome.hpp"

namespace kforge::kernels::host {

struct GemmTemplateParams {
  int MC = 0, NC = 0, KC = 0;  // cache blocking: rows of A, columns of B, depth per block
  int MR = 0, NR = 0;          // register tile
  int VEC = 1;                 // SIMD width in floats (1 = scalar)
  int UNROLL = 1;              // unroll of the micro-kernel's k loop
  bool PACK = false;           // pack A and B panels into contiguous, zero-padded buffers
  std::string LOOP_ORDER;      // order of the NC (j), KC (p) and MC (i) block loops: "jpi", "pji" or "jip"
};

// Throws std::invalid_argument naming every missing or unknown parameter, or the first bad value.
GemmTemplateParams gemm_params_from_genome(const jobs::Genome& genome);

// C++17 source exporting extern "C" kforge_gemm(M, N, K, A, lda, B, ldb, C, ldc) computing C = A*B.
std::string render_gemm_source(const GemmTemplateParams& p);

}  // namespace kforge::kernels::host
