#include "cublas_gemm.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>

namespace kforge::kernels::cuda {

// Explicit types: cublas_api.h overloads cublasGemmEx for old code, so decltype cannot name it.
struct CublasGemm::Api {
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                            const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                            cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t) = nullptr;
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float*,
                          const float*, int, const float*, int, const float*, float*, int) = nullptr;
};

namespace {

template <typename Fn>
void bind(void* library, const char* name, Fn& slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  if (slot == nullptr) throw std::runtime_error(std::string("cublas baseline: libcublas lacks ") + name);
}

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cublas baseline: ") + call + " failed with cublasStatus_t " +
                             std::to_string(static_cast<int>(status)));
}

}  // namespace

CublasGemm::CublasGemm() : api_(new Api) {
  // As NVRTC is found (nvrtc_api.cpp): the loader's path, then CUDA_HOME and /usr/local/cuda, so that a bare CUDA
  // machine needs no LD_LIBRARY_PATH; cublasGemmEx's C API is the same in CUDA 12 and 13.
  std::vector<std::string> dirs{""};
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home)
    dirs.push_back(std::string(home) + "/lib64/");
  dirs.emplace_back("/usr/local/cuda/lib64/");
  for (const std::string& dir : dirs) {
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}) {
      library_ = dlopen((dir + name).c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library_ != nullptr) break;
    }
    if (library_ != nullptr) break;
  }
  if (library_ == nullptr) {
    delete api_;
    throw std::runtime_error(
        "cublas baseline: cannot load libcublas.so.13 or .12 (searched the loader's path, "
        "CUDA_HOME/lib64 and /usr/local/cuda/lib64; add the CUDA toolkit's lib64 to "
        "LD_LIBRARY_PATH or drop \"cublas\" from evaluation.baselines)");
  }
  try {
    bind(library_, "cublasCreate_v2", api_->create);
    bind(library_, "cublasDestroy_v2", api_->destroy);
    bind(library_, "cublasSetStream_v2", api_->set_stream);
    bind(library_, "cublasGemmEx", api_->gemm_ex);
    bind(library_, "cublasSetMathMode", api_->set_math_mode);
    bind(library_, "cublasSgemm_v2", api_->sgemm);
    cublasHandle_t h = nullptr;
    check(api_->create(&h), "cublasCreate");
    handle_ = h;
    check(api_->set_math_mode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // fp32 stays fp32 (no TF32)
  } catch (...) {
    dlclose(library_);
    delete api_;
    throw;
  }
}

CublasGemm::~CublasGemm() {
  if (handle_ != nullptr) api_->destroy(static_cast<cublasHandle_t>(handle_));
  dlclose(library_);
  delete api_;
}

void CublasGemm::run(CUstream stream, std::uint64_t a, std::uint64_t b, std::uint64_t c, int M, int N, int K) {
  const auto h = static_cast<cublasHandle_t>(handle_);
  check(api_->set_stream(h, reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream");
  const float alpha = 1.f, beta = 0.f;
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands, no transposes.
  check(api_->gemm_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, reinterpret_cast<const void*>(b), CUDA_R_16BF, N,
                      reinterpret_cast<const void*>(a), CUDA_R_16BF, K, &beta, reinterpret_cast<void*>(c), CUDA_R_32F,
                      N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

void CublasGemm::run_fp32_nt(CUstream stream, std::uint64_t a, int lda, std::uint64_t w, std::uint64_t c, int ldc,
                             int M, int N, int K, bool accumulate) {
  const auto h = static_cast<cublasHandle_t>(handle_);
  check(api_->set_stream(h, reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream");
  const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
  // Row-major C = A W^T is column-major C^T = W A^T: W (column-major K x N) transposed, A^T as it lies.
  check(api_->sgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, reinterpret_cast<const float*>(w), K,
                    reinterpret_cast<const float*>(a), lda, &beta, reinterpret_cast<float*>(c), ldc),
        "cublasSgemm");
}

void CublasGemm::run_bf16_nt(CUstream stream, std::uint64_t a, int lda, std::uint64_t w, std::uint64_t c, int ldc,
                             int M, int N, int K, bool accumulate) {
  const auto h = static_cast<cublasHandle_t>(handle_);
  check(api_->set_stream(h, reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream");
  const float alpha = 1.f, beta = accumulate ? 1.f : 0.f;
  // As run_fp32_nt: column-major C^T = W A^T, W (column-major K x N) transposed.
  check(api_->gemm_ex(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, reinterpret_cast<const void*>(w), CUDA_R_16BF, K,
                      reinterpret_cast<const void*>(a), CUDA_R_16BF, lda, &beta, reinterpret_cast<void*>(c), CUDA_R_32F,
                      ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
}

}  // namespace kforge::kernels::cuda
