#pragma once
// The reference engine's whole-matrix primitives (step() and teacher_forced()): a projection of many token rows as
// one double matrix product (OpenBLAS dgemm, blocked and vectorised) and RMSNorm row by row.
#include <cblas.h>

#include <cstdint>
#include <vector>

#include "kforge/engine/reference_math.hpp"

namespace kforge::kernels::engine::reference_blas {

// Before each step or check: OpenBLAS's threads for the reference's products (set_reference_threads()).
void use_reference_threads();

// Y [n x out] = X [n x in] W^T, W stored [out][in] as Hugging Face stores it; Y += when accumulate.
inline void project(const double* x, std::int64_t n, std::int64_t in, const double* w, std::int64_t out, double* y,
                    bool accumulate = false) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(n), static_cast<blasint>(out),
              static_cast<blasint>(in), 1.0, x, static_cast<blasint>(in), w, static_cast<blasint>(in),
              accumulate ? 1.0 : 0.0, y, static_cast<blasint>(out));
}

inline void norm_rows(const std::vector<double>& x, const double* gamma, double eps, std::int64_t width,
                      std::vector<double>& out) {
  out.resize(x.size());
  for (std::size_t r = 0; r < x.size() / static_cast<std::size_t>(width); ++r)
    reference_math::rms_norm(x.data() + r * width, gamma, eps, width, out.data() + r * width);
}

// SiLU(gate) * up, elementwise into gate.
inline void swiglu(std::vector<double>& gate, const std::vector<double>& up) {
  for (std::size_t j = 0; j < gate.size(); ++j) gate[j] = gate[j] * reference_math::sigmoid(gate[j]) * up[j];
}

}  // namespace kforge::kernels::engine::reference_blas
