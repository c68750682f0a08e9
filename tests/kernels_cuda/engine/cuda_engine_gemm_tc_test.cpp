// kf_gemm_tc (GEMM_TC): the projections of the steps that feed prompts on tensor cores, for bf16 weights, each fp32
// activation split into three bf16 parts, on the CPU emulation of the module (a FAKE GPU whose mma.sync follows the
// PTX ISA's fragment layout, tests/kernels_cuda/emulator/cuda_emulation_tensor_ops.hpp). The model it computes is the
// fp32 engine's, within 1e-5 of the double reference like every fp32 path; a mistaken fragment, a split that keeps
// only the first part, or a wrong row of C is caught where the genome uses it and harmless where it does not. With
// bf16 activations (the activation contract: cuda_engine_activations_test.cpp), the split keeps the first part
// alone.
#include <gtest/gtest.h>

#include <regex>

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
  expect_correct(testing::edge_settings(), tensor_cores({{"prefill_chunk", 64}, {"GEMV_ROWS", 8}}, "bf16"));
  expect_correct(testing::settings("llama"), tensor_cores({}, "fp32"));
}

TEST(CudaEngineTensorCores, AWrongTensorCoreProjectionIsCaughtWhereTheGenomeUsesIt) {
  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"for (int p = TC_PARTS - 1; p >= 0; --p)", "for (int p = 0; p >= 0; --p)"},  // hi alone: bf16 activations
      {"[wn + (2 * jp + (q >> 1)) * 8 + qr][kk + (q & 1) * 8]", "[wn + (2 * jp + (q >> 1)) * 8 + qr][kk]"},  // B's k
      {"[wm + i * 16 + (q & 1) * 8 + qr][kk + (q >> 1) * 8]", "[wm + i * 16 + (q >> 1) * 8 + qr][kk + (q & 1) * 8]"},
      {"g + (e / 2) * 8, n = n0", "g + (e % 2) * 8, n = n0"},
      {"for (int s = 0; s < slices; ++s)", "for (int s = 0; s + 1 < slices; ++s)"},  // the last slice of K dropped
      // The pipeline: a slice multiplied before its copies were waited for; the next slice copied into the stage
      // being multiplied.
      {"cp_async_wait<0>();  // slice s's", "cp_async_wait<1>();  // slice s's"},
      {"kf_gemm_tc_stage(af[stage ^ 1], ws[stage ^ 1]", "kf_gemm_tc_stage(af[stage], ws[stage]"}};
  for (const auto& [from, to] : mistakes)
    for (const char* weights : {"bf16", "fp32"})
      EXPECT_EQ(verified_with_edit(tensor_cores({}, weights), from, to),
                std::string(weights) == "bf16" ? jobs::Status::wrong_result : jobs::Status::ok)
          << weights << ": " << from;
}

// The copies at the matrices' edges (hidden 72: K = 72 in 16-byte vectors, its last slice half past K; mlp 100: K =
// 100, rows that are not 16-byte vectors, so 4-byte copies of A and plain loads of W): a copy of the wrong columns in
// the slice that hangs over K is caught on either path. (A bound of A or of W alone dropped changes nothing here: the
// other side's zeros cancel it.)
TEST(CudaEngineTensorCores, TheCopiesAtTheMatricesEdgesAreChecked) {
  const jobs::EvalSettings edges = testing::edge_settings();
  const jobs::Genome g = tensor_cores({{"prefill_chunk", 64}}, "bf16");
  const std::vector<std::pair<std::string, std::string>> mistakes = {
      {"cp_async16(&af[r][c], in ? A + (long long)m * lda + k : A, in);",
       "cp_async16(&af[r][c], in ? A + (long long)m * lda + k + 4 * (k == 64) : A, in);"},
      {"cp_async16(&wh[r][c], in ? W + (long long)n * K + k : W, in);",
       "cp_async16(&wh[r][c], in ? W + (long long)n * K + k - 8 * (k == 64) : W, in);"},
      {"cp_async4(&af[r][c], in ? A + (long long)m * lda + k : A, in);",
       "cp_async4(&af[r][c], in ? A + (long long)m * lda + k + (k == 96) : A, in);"},
      {"(n < N && k < K) ? (unsigned short)W[(long long)n * K + k]",
       "(n < N && k < K) ? (unsigned short)W[(long long)n * K + k + (k == 97)]"}};
  for (const auto& [from, to] : mistakes)
    EXPECT_EQ(verified_with_edit(g, from, to, edges), jobs::Status::wrong_result) << from;
}

jobs::Genome bf16_activations(jobs::Genome g) {
  g.params["activations"] = std::string("bf16");
  return g;
}

// ptxas figures on both targets: one part of A in shared memory instead of three, no spill.
TEST(CudaEngineTensorCores, OneProductPerWeightCompilesForBothTargetsWithLessSharedMemory) {
  testing::ScratchDir scratch;
  CudaEngineBackend b = testing::gpu_backend(scratch);
  const jobs::EvalSettings s = testing::settings("llama");
  const std::regex figures(
      R"(kf_gemm_tc: (\d+) registers/thread, (\d+) B static \+ 0 B dynamic shared memory, 0 B spill stores, 0 B spill loads)");
  for (const char* arch : {"hopper", "blackwell"}) {
    std::int64_t shared[2] = {0, 0};
    for (const bool act_bf16 : {false, true}) {
      const jobs::Genome g = act_bf16 ? bf16_activations(tensor_cores({}, "bf16")) : tensor_cores({}, "bf16");
      const jobs::Candidate c = testing::candidate(g);
      const CompileResult r = b.compile(b.render(c), c, testing::context(s, scratch, arch));
      ASSERT_TRUE(r.ok) << arch << "\n" << r.log;
      std::smatch m;
      ASSERT_TRUE(std::regex_search(r.log, m, figures)) << r.log;
      shared[act_bf16] = std::stoll(m[2]);
    }
    EXPECT_EQ(shared[0] - shared[1], 2 * 64 * 20 * 4) << arch << ": two parts of a 64 x 32 slice of A fewer";
  }
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
