// kf_gemm_tc (GEMM_TC): the projections of the steps that feed prompts on tensor cores, for bf16 weights, each fp32
// activation split into three bf16 parts, on the CPU emulation of the module (a FAKE GPU whose mma.sync follows the
// PTX ISA's fragment layout, tests/kernels_cuda/emulator/cuda_emulation_tensor_ops.hpp). The model it computes is the
// fp32 engine's, within 1e-5 of the double reference like every fp32 path; a mistaken fragment, a split that keeps
// only the first part, or a wrong row of C is caught where the genome uses it and harmless where it does not.
#include <gtest/gtest.h>

#include "emulated_backend.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using testing::expect_correct;
using testing::verified_with_edit;

jobs::Genome tensor_cores(std::initializer_list<std::pair<const char*, std::int64_t>> changes, const char* weights) {
  jobs::Genome g = testing::genome_with(changes);
  g.params["GEMM_TC"] = std::int64_t{1};
  g.params["weights"] = std::string(weights);
  return g;
}

// Both architectures; tiles over the matrices' edges (hidden 72: a slice of 8 of K, vocab 250 and mlp 100: partial
// tiles of N, steps of 1 to 64 tokens: partial tiles of M); with kf_gemv serving the decode steps; and fp32 weights,
// where the gene changes nothing (kf_gemm).
TEST(CudaEngineTensorCores, ProjectionsOnTensorCoresComputeTheSameModel) {
  for (const char* arch : {"llama", "kimi-linear"}) expect_correct(testing::settings(arch), tensor_cores({}, "bf16"));
  jobs::EvalSettings edges = testing::settings("llama");
  edges.engine.model.hidden = 72;
  edges.engine.model.head_dim = 18;
  edges.engine.model.mlp_hidden = 100;
  edges.engine.model.vocab = 250;
  expect_correct(edges, tensor_cores({{"prefill_chunk", 64}, {"GEMV_ROWS", 8}}, "bf16"));
  expect_correct(testing::settings("llama"), tensor_cores({}, "fp32"));
}

TEST(CudaEngineTensorCores, AWrongTensorCoreProjectionIsCaughtWhereTheGenomeUsesIt) {
  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"for (int p = 2; p >= 0; --p)", "for (int p = 0; p >= 0; --p)"},  // hi alone: bf16 activations
      {"b[j][1] = ws[wn + j * 8 + g][kk + t + 4];", "b[j][1] = ws[wn + j * 8 + g][kk + t];"},
      {"g + (e / 2) * 8, n = n0", "g + (e % 2) * 8, n = n0"}};
  for (const auto& [from, to] : mistakes)
    for (const char* weights : {"bf16", "fp32"})
      EXPECT_EQ(verified_with_edit(tensor_cores({}, weights), from, to),
                std::string(weights) == "bf16" ? jobs::Status::wrong_result : jobs::Status::ok)
          << weights << ": " << from;
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
