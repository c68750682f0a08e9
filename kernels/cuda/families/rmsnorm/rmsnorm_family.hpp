#pragma once
// rmsnorm: y = x * rsqrt(mean(x^2) + eps) * w over rows of `hidden` bf16 values; memory-bound.
// Parameters (share/examples/rmsnorm-cuda.yaml): VEC (bf16 per load), THREADS_PER_ROW, ROWS_PER_BLOCK.
// Problem: rows, hidden (hidden % 8 == 0); eps is 1e-6.
#include "family.hpp"

namespace kforge::kernels::cuda {

const char* rmsnorm_kernel_body();  // rmsnorm_source.cpp

class RmsnormFamily final : public CudaFamily {
 public:
  static constexpr float kEps = 1e-6f;
  std::string name() const override { return "rmsnorm"; }
  std::string entry_point() const override { return "kforge_rmsnorm"; }
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
