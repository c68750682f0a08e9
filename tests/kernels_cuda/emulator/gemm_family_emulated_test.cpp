// The gemm kernel template (gemm_source.cpp: cp.async stages, ldmatrix, mma.sync on bf16 with fp32 accumulation)
// run on the CPU emulation (a FAKE GPU, README.md) against the family's own check, on every verification problem,
// for genomes that span the space; and each mutation of its arithmetic, fragments or pipeline is a wrong_result.
// The template was written to the PTX ISA's fragment layouts independently of the emulation, so its passing here
// also checks the emulation's mma, ldmatrix and cp.async semantics (cuda_emulation_tensor_ops.hpp).
#include <gtest/gtest.h>

#include "emulated_family.hpp"
#include "gemm/gemm_family.hpp"
#include "host_gemm_test_support.hpp"

namespace kforge::kernels::cuda {
namespace {

jobs::Genome genome(std::int64_t bm, std::int64_t bn, std::int64_t bk, std::int64_t wm, std::int64_t wn,
                    std::int64_t stages, std::int64_t group_m) {
  jobs::Genome g;
  g.params = {{"BM", bm}, {"BN", bn}, {"BK", bk}, {"WM", wm}, {"WN", wn}, {"STAGES", stages}, {"GROUP_M", group_m}};
  return g;
}

std::string mutated(std::string source, const std::string& from, const std::string& to) {
  const auto at = source.find(from);
  if (at == std::string::npos) throw std::logic_error("the template has no " + from);
  return source.replace(at, from.size(), to);
}

TEST(GemmTemplateOnTheEmulator, EveryVerificationProblemMatchesTheProductAcrossTheSpace) {
  const GemmFamily family;
  testing::ScratchDir scratch;
  const auto problems = family.verification_problems(family.problem({}));
  for (const jobs::Genome& g : {family.default_genome(), genome(64, 64, 32, 32, 32, 2, 1),
                                genome(64, 256, 64, 32, 128, 4, 8), genome(256, 64, 32, 64, 64, 3, 1)}) {
    const CheckOutcome outcome = first_failure(family, g, family.render(g), problems, scratch.path());
    EXPECT_EQ(outcome.status, jobs::Status::ok) << outcome.evidence;
  }
}

// Each mutation is one a kernel author could make; each must be a wrong_result somewhere in the verification set.
TEST(GemmTemplateOnTheEmulator, EachMutationOfTheTemplateIsAWrongResult) {
  const GemmFamily family;
  testing::ScratchDir scratch;
  const jobs::Genome g = genome(64, 64, 32, 32, 32, 3, 1);
  const std::string source = family.render(g);
  const auto problems = family.verification_problems(family.problem({}));
  const std::vector<std::pair<const char*, std::string>> mutations = {
      {"half the k steps", mutated(source, "kk += 16", "kk += 32")},
      {"B fragments swapped", mutated(source, "b[2 * nj][1] = r[1]", "b[2 * nj][1] = r[3]")},
      {"B not transposed", mutated(source, "ldmatrix_x4_trans(r, sB", "ldmatrix_x4(r, sB")},
      {"A rows of the wrong half", mutated(source, "mi * 16 + lane % 16", "mi * 16 + lane % 8")},
      {"a stage read before it landed", mutated(source, "cp_async_wait<STAGES - 2>()", "cp_async_wait<STAGES - 1>()")},
      {"the upper rows' accumulators dropped",
       mutated(source, "make_float2(acc[mi][ni][2], acc[mi][ni][3])", "make_float2(acc[mi][ni][2], 0.f)")},
  };
  for (const auto& [what, text] : mutations)
    EXPECT_EQ(first_failure(family, g, text, problems, scratch.path()).status, jobs::Status::wrong_result) << what;
}

}  // namespace
}  // namespace kforge::kernels::cuda
