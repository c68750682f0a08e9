#pragma once
// The gemm family's baselines on the host: "reference" (naive loops, the family baseline that speedups are
// measured against) and "openblas" (cblas_sgemm, single-threaded).
#include <string>
#include <vector>

#include "kforge/kernels/gemm_problem.hpp"

namespace kforge::kernels::host {

// Naive i-k-j loops in float: C = A * B.
void reference_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

// cblas_sgemm; gemm_baseline("openblas") limits OpenBLAS to one thread before handing it out.
void openblas_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

const std::vector<std::string>& gemm_baseline_names();  // "reference", "openblas"

// The kernel of a baseline by name. Throws std::invalid_argument naming the unknown baseline and the known ones.
gemm::GemmFn gemm_baseline(const std::string& name);

}  // namespace kforge::kernels::host
