#pragma once
// kda: chunked Kimi Delta Attention forward (see kda_source.cpp for the algorithm), fp32, head dim 128.
// Parameters (share/examples/kda-cuda.yaml): CHUNK tokens per chunk, BV value columns per block, WARPS per
// block, STAGES chunks in flight (cp.async). Problem: B, T, H (and D, which must be 128).
#include "family.hpp"

namespace kforge::kernels::cuda {

const char* kda_kernel_body();  // kda_source.cpp

// The per-token recurrence in double for one (batch, head): o [T][D] and the final state [D][D].
// Layouts as the kernel's: x[((b*T + t)*H + h)*D + c], beta[(b*T + t)*H + h].
struct KdaInputs {
  int B = 0, T = 0, H = 0;
  static constexpr int D = 128;
  std::vector<float> q, k, v, g, beta;
};
void kda_reference_head(const KdaInputs& in, int b, int h, std::vector<double>& o, std::vector<double>& state);

class KdaFamily final : public CudaFamily {
 public:
  std::string name() const override { return "kda"; }
  std::string entry_point() const override { return "kforge_kda"; }
  ParamSpace space() const override;
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
