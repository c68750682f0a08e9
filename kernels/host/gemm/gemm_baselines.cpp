#include "gemm/gemm_baselines.hpp"

#include <cblas.h>

#include <stdexcept>

namespace kforge::kernels::host {

void reference_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int i = 0; i < M; ++i) {
    float* c_row = C + static_cast<std::ptrdiff_t>(i) * ldc;
    for (int j = 0; j < N; ++j) c_row[j] = 0.0f;
    for (int k = 0; k < K; ++k) {
      const float a = A[static_cast<std::ptrdiff_t>(i) * lda + k];
      const float* b_row = B + static_cast<std::ptrdiff_t>(k) * ldb;
      for (int j = 0; j < N; ++j) c_row[j] += a * b_row[j];
    }
  }
}

void openblas_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}

const std::vector<std::string>& gemm_baseline_names() {
  static const std::vector<std::string> names = {"reference", "openblas"};
  return names;
}

gemm::GemmFn gemm_baseline(const std::string& name) {
  if (name == "reference") return &reference_gemm;
  if (name == "openblas") {
    openblas_set_num_threads(1);  // candidates are single-threaded, so is the comparison
    return &openblas_gemm;
  }
  throw std::invalid_argument("gemm host backend: unknown baseline '" + name +
                              "' in evaluation.baselines (known: reference, openblas)");
}

}  // namespace kforge::kernels::host
