// The published schema of cuda/engine (kforge/kernels/family_schema.hpp, what `kforge validate` checks a campaign
// against) agrees with the cuda engine's genome (cuda_engine_params.hpp): the same parameters with the same choices,
// the schedule's, the weights' and the activations' strings, the baselines and the targets; an unknown precision is
// named.
#include <gtest/gtest.h>

#include "arch.hpp"
#include "cuda_engine_params.hpp"
#include "kforge/kernels/family_schema.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

TEST(CudaEngineSchema, TheSchemaListsTheGenomesParametersWithTheirChoices) {
  const FamilySchema* s = find_family_schema("cuda", "engine");
  ASSERT_NE(s, nullptr);
  const ParamSpace& space = cuda_engine_space();
  ASSERT_EQ(s->parameters.size(), cuda_engine_param_names().size());
  for (const auto& p : s->parameters) {
    if (p.name == "schedule") {
      EXPECT_EQ(p.string_choices, (std::vector<std::string>{"decode_first", "prefill_first"}));
      continue;
    }
    if (p.name == "weights") {  // optional: fp32 when a genome leaves it out
      EXPECT_EQ(p.string_choices, (std::vector<std::string>{"fp32", "bf16", "int8", "fp8"}));
      EXPECT_EQ(p.default_string, "fp32");
      continue;
    }
    if (p.name == "activations") {  // optional: fp32 (the strict contract) when a genome leaves it out
      EXPECT_EQ(p.string_choices, (std::vector<std::string>{"fp32", "bf16"}));
      EXPECT_EQ(p.default_string, "fp32");
      continue;
    }
    ASSERT_TRUE(space.count(p.name)) << p.name;
    EXPECT_EQ(p.int_choices, space.at(p.name)) << p.name;
  }
  EXPECT_EQ(s->baselines, (std::vector<std::string>{"reference", "cublas", "cublas_bf16"}));
  ASSERT_EQ(s->targets.size(), known_archs().size());
  for (std::size_t i = 0; i < s->targets.size(); ++i) EXPECT_EQ(s->targets[i].name, known_archs()[i].target);
  EXPECT_FALSE(cuda_engine_invalid_reason(default_cuda_engine_genome()));
  jobs::Genome fp16 = default_cuda_engine_genome();
  fp16.params["weights"] = std::string("fp16");
  EXPECT_EQ(cuda_engine_invalid_reason(fp16).value_or(""), "parameter weights must be fp32, bf16, int8 or fp8");
  jobs::Genome fp8_activations = default_cuda_engine_genome();
  fp8_activations.params["activations"] = std::string("fp8");
  EXPECT_EQ(cuda_engine_invalid_reason(fp8_activations).value_or(""), "parameter activations must be fp32 or bf16");
  fp8_activations.params["activations"] = std::string("bf16");
  EXPECT_EQ(cuda_engine_params(fp8_activations).activations, kernels::engine::ActivationPrecision::bf16);
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
