// The shipped cuda kernel examples (share/examples/*-cuda.yaml) validate, and their spaces' constraints agree
// with the families: every configuration a constraint admits launches within both targets' limits (threads,
// shared memory), so the search never spends a candidate on a launch the backend rejects; for the kda families,
// whose constraint is exactly the shared-memory bound, every configuration that fits is admitted too. Written
// when kda_bf16 gained a bound of its own (bf16 stages plus an fp32 work area). No GPU needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "arch.hpp"
#include "family.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/search/search_space.hpp"
#include "resource_check.hpp"

namespace kforge::kernels::cuda {
namespace {

namespace fs = std::filesystem;

// Every combination of the listed values (the constraints not applied).
std::vector<jobs::Genome> cartesian(const std::vector<scheduler::ParameterSpec>& parameters) {
  std::vector<jobs::Genome> out{jobs::Genome{}};
  for (const auto& p : parameters) {
    std::vector<jobs::Genome> next;
    for (const auto& g : out)
      for (const auto& v : p.values) {
        jobs::Genome h = g;
        h.params[p.name] = v;
        next.push_back(h);
      }
    out = std::move(next);
  }
  return out;
}

std::vector<fs::path> shipped_cuda_kernel_examples() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(KFORGE_SOURCE_DIR) / "share/examples")) {
    const std::string name = e.path().filename().string();
    if (name.ends_with("-cuda.yaml") && !name.starts_with("engine")) out.push_back(e.path());
  }
  return out;
}

TEST(ShippedCudaExamples, EveryAdmittedConfigurationLaunchesOnBothTargets) {
  const auto examples = shipped_cuda_kernel_examples();
  ASSERT_GE(examples.size(), 5u);  // gemm, kda, kda_bf16, kda_bf16_tc, rmsnorm
  for (const auto& path : examples) {
    SCOPED_TRACE(path.filename().string());
    const scheduler::CampaignConfig c = scheduler::load_campaign(path);
    ASSERT_EQ(c.backend, "cuda");
    const auto family = make_cuda_family(c.family);
    const Problem problem = family->problem(c.eval);
    const scheduler::SearchSpace space(c.space);
    int admitted = 0;
    for (const jobs::Genome& g : cartesian(c.space.parameters)) {
      bool fits = !family->invalid_reason(g).has_value();
      for (const std::string target : {"hopper", "blackwell"})
        fits = fits && !launch_rejection(family->launch(g, problem), arch_for_target(target)).has_value();
      const bool in_space = space.contains(g);
      admitted += in_space;
      if (in_space) {
        EXPECT_TRUE(fits) << g.to_text() << ": " << family->launch(g, problem).text();
      }
      if (c.family.starts_with("kda")) {
        EXPECT_EQ(in_space, fits) << g.to_text();
      }
    }
    EXPECT_GT(admitted, 0);
  }
}

}  // namespace
}  // namespace kforge::kernels::cuda
