#pragma once
// gemm: C (fp32) = A (bf16) * B (bf16), row-major, fp32 accumulation on the tensor cores.
// Parameters (share/examples/gemm-cuda.yaml): block tile BM x BN x BK, warp tile WM x WN, cp.async pipeline
// depth STAGES, block rasterisation GROUP_M. Problem: M, N, K (N and K multiples of 8).
#include "family.hpp"

namespace kforge::kernels::cuda {

const char* gemm_kernel_body();  // gemm_source.cpp

class GemmFamily final : public CudaFamily {
 public:
  std::string name() const override { return "gemm"; }
  std::string entry_point() const override { return "kforge_gemm"; }
  jobs::Genome default_genome() const override;
  std::optional<std::string> invalid_reason(const jobs::Genome& g) const override;
  std::string render(const jobs::Genome& g) const override;
  Problem problem(const jobs::EvalSettings& settings) const override;
  std::vector<Problem> verification_problems(const Problem& main) const override;
  LaunchConfig launch(const jobs::Genome& g, const Problem& p) const override;
  double flop(const Problem& p) const override;
  double bytes(const Problem& p) const override;
  HostCase make_case(const Problem& p, std::mt19937_64& rng, bool full_check) const override;
};

}  // namespace kforge::kernels::cuda
