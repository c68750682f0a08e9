#pragma once
// kda: chunked Kimi Delta Attention forward (see kda_source.cpp for the algorithm), head dim 128, fp32 arithmetic.
// Three families share it: kda (every tensor fp32) and kda_bf16 (q, k, v, beta and o in bf16, g and the final state
// fp32: the precisions of FLA's chunk_kda, so the two compare like for like), both held to the strict contract with
// fp32 arithmetic; and kda_bf16_tc, kda_bf16's tensors with the chunk products on tensor cores (bf16 operands,
// kda_tc_source.cpp) under the tensor-core contract, FLA's own accuracy bound (kda_check.hpp).
// Parameters (share/examples/kda-cuda.yaml): CHUNK tokens per chunk, BV value columns per block, WARPS per
// block, STAGES chunks in flight (cp.async). Problem: B, T, H (and D, which must be 128), varlen (0 or 1: B
// sequences of different lengths, kda_sequence_starts, packed as FLA's cu_seqlens).
#include "family.hpp"

namespace kforge::kernels::cuda {

const char* kda_stage_text();      // kda_stage_source.cpp: the chunk's stage layout and load, before either body
const char* kda_kernel_body();     // kda_source.cpp
const char* kda_tc_kernel_body();  // kda_tc_source.cpp

// Where each of B sequences starts in the packed batch (B + 1 entries, the last the token count): B * T tokens
// in all. Equal lengths: 0, T, 2T, ... With `varlen`, sequence b gets 1 + (B*T - B) * b / (B(B-1)/2) tokens
// (sequence 0 one token, then longer and longer ones; the last takes what rounding left), so a variable-length
// batch has the work of the equal-length one. bench/gpu_acceptance_torch.py repeats this for FLA's cu_seqlens.
std::vector<int> kda_sequence_starts(int B, int T, bool varlen);

// The per-token recurrence in double for one (sequence, head): o [T_b][D] and the final state [D][D].
// Layouts as the kernel's: x[((start_b + t)*H + h)*D + c], beta[(start_b + t)*H + h]; `starts` empty means
// equal lengths T (start_b = b*T).
struct KdaInputs {
  int B = 0, T = 0, H = 0;
  static constexpr int D = 128;
  std::vector<int> starts;
  std::vector<float> q, k, v, g, beta;
  int start(int b) const { return starts.empty() ? b * T : starts[b]; }
  int length(int b) const { return starts.empty() ? T : starts[b + 1] - starts[b]; }
  std::size_t tokens() const { return static_cast<std::size_t>(start(B)); }
};
void kda_reference_head(const KdaInputs& in, int b, int h, std::vector<double>& o, std::vector<double>& state);

// fp32, bf16: kda and kda_bf16 (strict contract); bf16_tc: kda_bf16_tc (tensor-core contract, bf16 tensors).
enum class KdaPrecision { fp32, bf16, bf16_tc };

class KdaFamily final : public CudaFamily {
 public:
  explicit KdaFamily(KdaPrecision precision = KdaPrecision::fp32) : precision_(precision) {}
  std::string name() const override {
    return precision_ == KdaPrecision::bf16 ? "kda_bf16" : precision_ == KdaPrecision::bf16_tc ? "kda_bf16_tc" : "kda";
  }
  std::string entry_point() const override { return "kforge_kda"; }
  jobs::Genome default_genome() const override;
  std::optional<std::string> invalid_reason(const jobs::Genome& g) const override;
  std::string render(const jobs::Genome& g) const override;
  Problem problem(const jobs::EvalSettings& settings) const override;
  std::vector<Problem> verification_problems(const Problem& main) const override;
  LaunchConfig launch(const jobs::Genome& g, const Problem& p) const override;
  double flop(const Problem& p) const override;
  double bytes(const Problem& p) const override;
  HostCase make_case(const Problem& p, std::mt19937_64& rng, bool full_check) const override;

 private:
  bool bf16_tensors() const { return precision_ != KdaPrecision::fp32; }  // q, k, v, beta and o in bf16
  int input_bytes() const { return bf16_tensors() ? 2 : 4; }
  KdaPrecision precision_;
};

}  // namespace kforge::kernels::cuda
