// The kda and kda_bf16 kernel templates themselves (kda_source.cpp, the text NVRTC compiles for the GPU), run on the
// CPU emulation (a FAKE GPU, README.md) against the family's own double-precision check: every verification
// problem (T = 1, T not a multiple of the chunk, variable-length batches, the gate at both bounds, huge and tiny v)
// for genomes that span the space. Without a GPU this is what shows that the stage layouts, the bf16 widening and
// narrowing and the cp.async pipeline compute KDA; kda_chunk_math_test.cpp checks the algorithm alone.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "emulated_family.hpp"
#include "host_gemm_test_support.hpp"
#include "kda/kda_check.hpp"
#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {
namespace {

jobs::Genome genome(std::int64_t chunk, std::int64_t bv, std::int64_t warps, std::int64_t stages) {
  jobs::Genome g;
  g.params = {{"CHUNK", chunk}, {"BV", bv}, {"WARPS", warps}, {"STAGES", stages}};
  return g;
}

class KdaTemplateOnTheEmulator : public ::testing::TestWithParam<KdaPrecision> {};

TEST_P(KdaTemplateOnTheEmulator, EveryVerificationProblemMatchesTheRecurrenceAcrossTheSpace) {
  const KdaFamily family(GetParam());
  testing::ScratchDir scratch;
  for (const jobs::Genome& g :
       {genome(16, 16, 2, 1), genome(32, 64, 8, 2), genome(64, 128, 4, 3), genome(64, 32, 16, 2)}) {
    EmulatedModule module(family.render(g), {}, {family.entry_point()}, scratch.path());
    std::uint64_t seed = 7;
    for (const Problem& p : family.verification_problems(family.problem({}))) {
      std::mt19937_64 rng(++seed);
      const HostCase c = family.make_case(p, rng, /*full_check=*/true);
      const CheckOutcome outcome = c.check(launch_on(module, family, g, p, c, c));
      EXPECT_EQ(outcome.status, jobs::Status::ok)
          << family.name() << " " << g.to_text() << " on " << problem_text(p) << ": " << outcome.evidence;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryContract, KdaTemplateOnTheEmulator,
    ::testing::Values(KdaPrecision::fp32, KdaPrecision::bf16, KdaPrecision::bf16_tc), [](const auto& param_info) {
      const KdaPrecision p = param_info.param;
      return std::string(p == KdaPrecision::bf16 ? "bf16" : p == KdaPrecision::bf16_tc ? "bf16_tc" : "fp32");
    });

// The emulation is not blind to a wrong kernel: the fp32 kernel handed kda_bf16's inputs (bf16 bits read as floats)
// is a wrong_result, where the same kernel on its own inputs is ok.
TEST(KdaTemplateOnTheEmulator, TheFp32KernelOnBf16InputsIsAWrongResult) {
  const KdaFamily fp32, bf16(KdaPrecision::bf16);
  testing::ScratchDir scratch;
  const jobs::Genome g = genome(32, 64, 4, 2);
  EmulatedModule module(fp32.render(g), {}, {fp32.entry_point()}, scratch.path());
  const Problem p{{"B", 1}, {"T", 40}, {"H", 1}};
  // The bf16 case's o is half the bytes the fp32 kernel writes: the outputs are laid out as the fp32 case's.
  std::mt19937_64 rng_bf16(3), rng_fp32(3);
  const HostCase wrong = bf16.make_case(p, rng_bf16, true), right = fp32.make_case(p, rng_fp32, true);
  EXPECT_EQ(right.check(launch_on(module, fp32, g, p, right, right)).status, jobs::Status::ok);
  EXPECT_EQ(right.check(launch_on(module, fp32, g, p, wrong, right)).status, jobs::Status::wrong_result);
}

std::string mutated(std::string source, const std::string& from, const std::string& to) {
  const auto at = source.find(from);
  if (at == std::string::npos) throw std::logic_error("the template has no " + from);
  return source.replace(at, from.size(), to);
}

// The tensor-core template within FLA's bound on every verification problem, by a margin printed here, while the same
// outputs fail the strict contract: bf16 operands are what a second contract is for.
TEST(KdaTensorCoreTemplateOnTheEmulator, MeetsFlasBoundWhereTheStrictContractRejectsIt) {
  const KdaFamily family(KdaPrecision::bf16_tc), strict(KdaPrecision::bf16);
  testing::ScratchDir scratch;
  const jobs::Genome g = genome(32, 64, 4, 2);
  EmulatedModule module(family.render(g), {}, {family.entry_point()}, scratch.path());
  int strict_rejects = 0;
  std::uint64_t seed = 11;
  for (const Problem& p : family.verification_problems(family.problem({}))) {
    std::mt19937_64 rng(++seed), same_rng(seed);
    const HostCase c = family.make_case(p, rng, /*full_check=*/true);
    const std::vector<Bytes> outputs = launch_on(module, family, g, p, c, c);
    const CheckOutcome outcome = c.check(outputs);
    EXPECT_EQ(outcome.status, jobs::Status::ok) << problem_text(p) << ": " << outcome.evidence;
    std::printf("kda_bf16_tc %s on %s: worst relative RMS error %.5f (bound %.3f)\n", g.to_text().c_str(),
                problem_text(p).c_str(), outcome.max_rel_error, kKdaRmsErrorBound);
    strict_rejects += strict.make_case(p, same_rng, true).check(outputs).status == jobs::Status::wrong_result;
  }
  EXPECT_GT(strict_rejects, 0);
}

// Each mutation of the tensor-core template's arithmetic, fragments or pipeline is a wrong_result under its contract.
TEST(KdaTensorCoreTemplateOnTheEmulator, EachMutationIsAWrongResult) {
  const KdaFamily family(KdaPrecision::bf16_tc);
  testing::ScratchDir scratch;
  const jobs::Genome g = genome(32, 32, 4, 2);
  const std::string source = family.render(g);
  const auto problems = family.verification_problems(family.problem({}));
  const std::vector<std::pair<const char*, std::string>> mutations = {
      {"o 1% high",
       mutated(source, "float_to_bf16(Of[i * BV + col] + acc", "float_to_bf16(1.01f * Of[i * BV + col] + acc")},
      {"no inter-chunk output", mutated(source, "Of[i * BV + col] = out[e / 4][e % 4];", "Of[i * BV + col] = 0.f;")},
      {"the state not decayed", mutated(source, "__expf(G_last[c]) * S[c * BV + col]", "S[c * BV + col]")},
      {"Kr read untransposed", mutated(source, "mma_tile<true>(acc, Kr", "mma_tile<false>(acc, Kr")},
      {"the second n8 half's B fragment", mutated(source, "mma_bf16(acc[1], a, b + 2)", "mma_bf16(acc[1], a, b)")},
      {"A rows of the wrong half", mutated(source, "m0 + lane % 16", "m0 + lane % 8")},
      {"A and B below the diagonal tiles left out", mutated(source, "if (n0 < m0) {", "if (n0 < 0) {")},
      {"e^{-G} k without its decay", mutated(source, "float_to_bf16(kk * __expf(-G))", "float_to_bf16(kk)")},
      {"no forward substitution", mutated(source, "acc -= Af[i * CHUNK + j]", "acc -= 0.f * Af[i * CHUNK + j]")},
      {"a stage read before it landed", mutated(source, "cp_async_wait<STAGES - 1>()", "cp_async_wait<STAGES>()")},
      {"single-token sequences skipped", mutated(source, "if (t0 + i < T) o[", "if (t0 + i < T && T > 1) o[")},
  };
  for (const auto& [what, text] : mutations)
    EXPECT_EQ(first_failure(family, g, text, problems, scratch.path()).status, jobs::Status::wrong_result) << what;
}

}  // namespace
}  // namespace kforge::kernels::cuda
