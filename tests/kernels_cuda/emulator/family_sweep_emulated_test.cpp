// Every genome of every cuda family template that runs on the CPU emulation (gemm, kda, kda_bf16, kda_bf16_tc),
// against its family's own check on every verification problem: the sweep behind the emulated tests' few genomes.
// Genomes a Hopper launch cannot run (threads, shared memory: a resource_reject before any compile) are left out.
// One CTest test per genome; tier `sweep` (docs/testing.md), outside tests/run-all.sh: about half an hour on 2 cores.
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "arch.hpp"
#include "emulated_family.hpp"
#include "host_gemm_test_support.hpp"
#include "resource_check.hpp"

namespace kforge::kernels::cuda {
namespace {

struct SweepPoint {
  std::string family;
  jobs::Genome genome;
};

void PrintTo(const SweepPoint& p, std::ostream* out) { *out << p.family << " " << p.genome.to_text(); }

std::vector<SweepPoint> every_runnable_genome(const std::string& name) {
  const auto family = make_cuda_family(name);
  const Problem main = family->problem(jobs::EvalSettings{});
  std::vector<SweepPoint> out;
  for (const jobs::Genome& g : every_genome(family->space()))
    if (!family->invalid_reason(g) && !launch_rejection(family->launch(g, main), arch_for_target("hopper")))
      out.push_back({name, g});
  return out;
}

std::vector<SweepPoint> sweep() {
  std::vector<SweepPoint> out;
  for (const char* name : {"gemm", "kda", "kda_bf16", "kda_bf16_tc"})
    for (SweepPoint& p : every_runnable_genome(name)) out.push_back(std::move(p));
  return out;
}

class EveryGenomeOnTheEmulator : public ::testing::TestWithParam<SweepPoint> {};

TEST_P(EveryGenomeOnTheEmulator, PassesEveryVerificationProblem) {
  const auto family = make_cuda_family(GetParam().family);
  testing::ScratchDir scratch;
  const jobs::Genome& g = GetParam().genome;
  const CheckOutcome outcome =
      first_failure(*family, g, family->render(g), family->verification_problems(family->problem({})), scratch.path());
  EXPECT_EQ(outcome.status, jobs::Status::ok) << outcome.evidence;
}

INSTANTIATE_TEST_SUITE_P(Sweep, EveryGenomeOnTheEmulator, ::testing::ValuesIn(sweep()), [](const auto& param_info) {
  std::string name = param_info.param.family + "_" + param_info.param.genome.to_text();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace kforge::kernels::cuda
