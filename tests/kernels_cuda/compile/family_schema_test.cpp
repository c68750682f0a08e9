// The published schemas of the cuda families (kforge/kernels/family_schema.hpp) agree with the families
// (kernels/cuda/families) and the targets (arch.hpp): parameter choices, problem defaults and bounds, targets.
// No GPU needed.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "arch.hpp"
#include "family.hpp"
#include "kforge/kernels/family_schema.hpp"

namespace kforge::kernels {
namespace {

TEST(CudaFamilySchema, EveryCudaFamilyHasASchemaWithItsParameterChoices) {
  for (const std::string name : {"gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"}) {
    SCOPED_TRACE(name);
    const auto family = cuda::make_cuda_family(name);
    const FamilySchema* s = find_family_schema("cuda", name);
    ASSERT_NE(s, nullptr);
    const cuda::ParamSpace space = family->space();
    ASSERT_EQ(s->parameters.size(), space.size());
    for (const auto& p : s->parameters) {
      ASSERT_TRUE(space.count(p.name)) << p.name;
      EXPECT_EQ(p.int_choices, space.at(p.name)) << p.name;
    }
  }
  EXPECT_EQ(find_family_schema("cuda", "nosuch"), nullptr);
  EXPECT_THROW(cuda::make_cuda_family("nosuch"), std::invalid_argument);
}

TEST(CudaFamilySchema, ProblemDefaultsAndBoundsAgreeWithTheFamilies) {
  for (const std::string name : {"gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"}) {
    SCOPED_TRACE(name);
    const auto family = cuda::make_cuda_family(name);
    const FamilySchema& s = *find_family_schema("cuda", name);
    const cuda::Problem defaults = family->problem(jobs::EvalSettings{});
    ProblemSizes expected = s.problem_with_defaults({});
    // A fixed size (kda's D = 128) or a flag left at its default (kda's varlen 0) is accepted but not listed.
    for (const auto& k : s.problem)
      if ((k.min == k.max || k.default_value == k.min) && !defaults.count(k.name)) expected.erase(k.name);
    EXPECT_EQ(expected, ProblemSizes(defaults.begin(), defaults.end()));
    for (const auto& k : s.problem) {
      jobs::EvalSettings settings;
      settings.problem[k.name] = k.max + 1;
      EXPECT_THROW(family->problem(settings), std::invalid_argument) << k.name;
      if (k.multiple_of > 1) {
        settings.problem[k.name] = k.multiple_of + 1;
        EXPECT_THROW(family->problem(settings), std::invalid_argument) << k.name;
      }
      settings.problem[k.name] = k.default_value;
      EXPECT_NO_THROW(family->problem(settings)) << k.name;
    }
    jobs::EvalSettings unknown;
    unknown.problem["NOT_A_KEY"] = 8;
    EXPECT_THROW(family->problem(unknown), std::invalid_argument);
  }
}

TEST(CudaFamilySchema, TargetsAreTheArchitecturesTheBackendCompilesFor) {
  const FamilySchema& s = *find_family_schema("cuda", "gemm");
  ASSERT_EQ(s.targets.size(), cuda::known_archs().size());
  for (std::size_t i = 0; i < s.targets.size(); ++i) {
    EXPECT_EQ(s.targets[i].name, cuda::known_archs()[i].target);
    EXPECT_EQ(s.targets[i].note, cuda::known_archs()[i].arch);
  }
  EXPECT_THROW(cuda::arch_for_target("ampere"), std::invalid_argument);
}

}  // namespace
}  // namespace kforge::kernels
