// The kda and kda_bf16 kernel templates themselves (kda_source.cpp, the text NVRTC compiles for the GPU), run on the
// CPU emulation (a FAKE GPU, README.md) against the family's own double-precision check: every verification
// problem (T = 1, T not a multiple of the chunk, variable-length batches, the gate at both bounds, huge and tiny v)
// for genomes that span the space. Without a GPU this is what shows that the stage layouts, the bf16 widening and
// narrowing and the cp.async pipeline compute KDA; kda_chunk_math_test.cpp checks the algorithm alone.
#include <gtest/gtest.h>

#include <random>

#include "emulated_family.hpp"
#include "host_gemm_test_support.hpp"
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

INSTANTIATE_TEST_SUITE_P(BothPrecisions, KdaTemplateOnTheEmulator,
                         ::testing::Values(KdaPrecision::fp32, KdaPrecision::bf16), [](const auto& param_info) {
                           return std::string(param_info.param == KdaPrecision::bf16 ? "bf16" : "fp32");
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

}  // namespace
}  // namespace kforge::kernels::cuda
