#pragma once
// The "cublas" baselines: the gemm family's (cublasGemmEx with bf16 A and B, fp32 C and fp32 compute) and the
// cuda engine's projections (cublasSgemm at fp32, cublasGemmEx at bf16), on the harness's stream. libcublas is
// dlopen()ed when a baseline is asked for, so kforge neither links it nor needs it on machines without a GPU.
#include <cstdint>

#include <cuda.h>

namespace kforge::kernels::cuda {

class CublasGemm {
 public:
  CublasGemm();  // throws std::runtime_error naming the library or the call that failed
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // C (M x N, fp32) = A (M x K, bf16) * B (K x N, bf16), all row-major; enqueued on `stream`.
  void run(CUstream stream, std::uint64_t a, std::uint64_t b, std::uint64_t c, int M, int N, int K);

  // The cuda engine's cuBLAS baseline: C (M x N, row stride ldc) = A (M x K, row stride lda) W^T with W (N x K)
  // row-major, all fp32 (cublasSgemm in CUBLAS_DEFAULT_MATH: no TF32), added to C when `accumulate`.
  void run_fp32_nt(CUstream stream, std::uint64_t a, int lda, std::uint64_t w, std::uint64_t c, int ldc, int M, int N,
                   int K, bool accumulate);
  // The cuda engine's bf16 cuBLAS baseline: the same product with A and W bf16 (A dense, row stride lda), fp32
  // accumulation and C (cublasGemmEx, CUBLAS_COMPUTE_32F).
  void run_bf16_nt(CUstream stream, std::uint64_t a, int lda, std::uint64_t w, std::uint64_t c, int ldc, int M, int N,
                   int K, bool accumulate);

 private:
  struct Api;
  void* library_ = nullptr;
  void* handle_ = nullptr;
  Api* api_ = nullptr;
};

}  // namespace kforge::kernels::cuda
