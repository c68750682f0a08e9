// The published schemas of the host families (kforge/kernels/family_schema.hpp) agree with what the host
// templates, problem readers and baselines really accept: every bound of the schema is accepted, every value just
// outside it is refused by the backend too. A schema that drifted from its family fails here, not on a cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/engine_template.hpp"
#include "gemm/gemm_baselines.hpp"
#include "gemm/gemm_template.hpp"
#include "kda/kda_baselines.hpp"
#include "kda/kda_template.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/kernels/family_schema.hpp"
#include "kforge/kernels/gemm_problem.hpp"
#include "kforge/kernels/kda_problem.hpp"

namespace kforge::kernels {
namespace {

using Parse = void (*)(const jobs::Genome&);

void parse_gemm(const jobs::Genome& g) { host::gemm_params_from_genome(g); }
void parse_kda(const jobs::Genome& g) { host::kda_params_from_genome(g); }
void parse_engine(const jobs::Genome& g) { engine::engine_params_from_genome(g); }

// Each parameter's bounds and choices against the template's own parser, starting from a valid genome.
void expect_parameters_agree(const FamilySchema& s, const jobs::Genome& valid, Parse parse) {
  ASSERT_NO_THROW(parse(valid));
  for (const auto& p : s.parameters) {
    SCOPED_TRACE(s.pair() + " " + p.name);
    jobs::Genome g = valid;
    if (p.type == ParameterSchema::Type::string) {
      for (const auto& choice : p.string_choices) {
        g.params[p.name] = choice;
        EXPECT_NO_THROW(parse(g)) << choice;
      }
      g.params[p.name] = std::string("not_a_choice");
      EXPECT_THROW(parse(g), std::invalid_argument);
      g.params[p.name] = std::int64_t{1};
      EXPECT_THROW(parse(g), std::invalid_argument);
      g.params.erase(p.name);
      if (p.optional())
        EXPECT_NO_THROW(parse(g));  // an optional parameter: the template's default
      else
        EXPECT_THROW(parse(g), std::invalid_argument);
      continue;
    }
    if (!p.int_choices.empty()) {
      for (std::int64_t v = p.min - 1; v <= p.max + 1; ++v) {
        const bool listed = std::find(p.int_choices.begin(), p.int_choices.end(), v) != p.int_choices.end();
        g.params[p.name] = v;
        if (listed)
          EXPECT_NO_THROW(parse(g)) << v;
        else
          EXPECT_THROW(parse(g), std::invalid_argument) << v;
      }
    } else {
      for (const std::int64_t v : {p.min, p.max}) {
        g.params[p.name] = v;
        EXPECT_NO_THROW(parse(g)) << v;
      }
      for (const std::int64_t v : {p.min - 1, p.max + 1}) {
        g.params[p.name] = v;
        EXPECT_THROW(parse(g), std::invalid_argument) << v;
      }
    }
    g.params[p.name] = std::string("16");
    EXPECT_THROW(parse(g), std::invalid_argument);
    g.params.erase(p.name);
    if (p.optional())
      EXPECT_NO_THROW(parse(g));  // an optional parameter: the template's default
    else
      EXPECT_THROW(parse(g), std::invalid_argument);  // every other schema parameter is required
  }
  jobs::Genome extra = valid;
  extra.params["NOT_A_PARAM"] = std::int64_t{1};
  EXPECT_THROW(parse(extra), std::invalid_argument);  // and no other
}

template <typename MainShape>
void expect_problem_agrees(const FamilySchema& s, MainShape main_shape) {
  jobs::EvalSettings defaults;
  EXPECT_NO_THROW(main_shape(defaults));
  for (const auto& k : s.problem) {
    SCOPED_TRACE(s.pair() + " " + k.name);
    jobs::EvalSettings settings;
    settings.problem[k.name] = k.max;
    EXPECT_NO_THROW(main_shape(settings));
    settings.problem[k.name] = k.max + 1;
    EXPECT_THROW(main_shape(settings), std::invalid_argument);
  }
}

TEST(HostFamilySchema, GemmParametersAgreeWithTheTemplate) {
  jobs::Genome valid;
  // NR = 16 is a multiple of every VEC choice, so each choice is judged on its own.
  for (const auto& [name, value] :
       {std::pair{"MC", 64}, {"NC", 256}, {"KC", 128}, {"MR", 4}, {"NR", 16}, {"VEC", 4}, {"UNROLL", 2}, {"PACK", 1}})
    valid.params[name] = std::int64_t{value};
  valid.params["LOOP_ORDER"] = std::string("jpi");
  // NR's own bounds: 1 and 128 with VEC = 1.
  const FamilySchema& s = *find_family_schema("host", "gemm");
  jobs::Genome scalar = valid;
  scalar.params["VEC"] = std::int64_t{1};
  FamilySchema without_vec = s;
  std::erase_if(without_vec.parameters, [](const ParameterSchema& p) { return p.name == "VEC"; });
  expect_parameters_agree(without_vec, scalar, parse_gemm);
  FamilySchema only_vec = s;
  std::erase_if(only_vec.parameters, [](const ParameterSchema& p) { return p.name != "VEC"; });
  expect_parameters_agree(only_vec, valid, parse_gemm);
}

TEST(HostFamilySchema, EngineParametersAgreeWithTheTemplate) {
  jobs::Genome valid;
  for (const auto& [name, value] : {std::pair{"MC", 64},
                                    {"NC", 256},
                                    {"KC", 128},
                                    {"MR", 4},
                                    {"NR", 16},
                                    {"VEC", 4},
                                    {"UNROLL", 2},
                                    {"PACK", 1},
                                    {"fuse_qkv", 1},
                                    {"fuse_gate_up", 0},
                                    {"fold_norm", 1},
                                    {"residual_epilogue", 0},
                                    {"prepack", 1},
                                    {"kv_block", 16},
                                    {"threads", 1},
                                    {"max_batch", 4},
                                    {"prefill_chunk", 32}})
    valid.params[name] = std::int64_t{value};
  valid.params["LOOP_ORDER"] = std::string("jpi");
  valid.params["schedule"] = std::string("decode_first");
  const FamilySchema& s = *find_family_schema("host", "engine");
  std::vector<std::string> names;
  for (const auto& p : s.parameters) names.push_back(p.name);
  EXPECT_EQ(names, engine::engine_param_names());
  // As for gemm: NR's own bounds with VEC = 1, VEC's choices with NR = 16.
  jobs::Genome scalar = valid;
  scalar.params["VEC"] = std::int64_t{1};
  FamilySchema without_vec = s;
  std::erase_if(without_vec.parameters, [](const ParameterSchema& p) { return p.name == "VEC"; });
  expect_parameters_agree(without_vec, scalar, parse_engine);
  FamilySchema only_vec = s;
  std::erase_if(only_vec.parameters, [](const ParameterSchema& p) { return p.name != "VEC"; });
  expect_parameters_agree(only_vec, valid, parse_engine);
  // The optional ones (KDA_*, weights, prefetch) and only they have defaults, the template's own for a genome that
  // leaves them out.
  const engine::EngineTemplateParams defaults = engine::engine_params_from_genome(valid);
  const std::map<std::string, int> template_defaults = {{"KDA_CHUNK", defaults.kda.CHUNK},
                                                        {"KDA_DV_TILE", defaults.kda.DV_TILE},
                                                        {"KDA_UNROLL", defaults.kda.UNROLL},
                                                        {"KDA_VEC", defaults.kda.VEC},
                                                        {"prefetch", defaults.prefetch}};
  std::vector<std::string> optional;
  for (const auto& p : s.parameters) {
    if (p.default_value) {
      EXPECT_EQ(*p.default_value, template_defaults.at(p.name)) << p.name;
    }
    if (p.default_string) {
      EXPECT_EQ(*p.default_string, engine::precision_name(defaults.weights)) << p.name;
    }
    if (p.optional()) optional.push_back(p.name);
  }
  EXPECT_EQ(optional, engine::engine_optional_param_names());
}

TEST(HostFamilySchema, KdaParametersAgreeWithTheTemplate) {
  jobs::Genome valid;
  for (const auto& [name, value] : {std::pair{"CHUNK", 32}, {"DV_TILE", 64}, {"UNROLL", 2}, {"VEC", 4}})
    valid.params[name] = std::int64_t{value};
  expect_parameters_agree(*find_family_schema("host", "kda"), valid, parse_kda);
}

TEST(HostFamilySchema, ProblemKeysAgreeWithTheProblemReaders) {
  const FamilySchema& gemm = *find_family_schema("host", "gemm");
  expect_problem_agrees(gemm, [](const jobs::EvalSettings& s) { return gemm::main_shape(s); });
  const gemm::Shape d = gemm::main_shape(jobs::EvalSettings{});
  EXPECT_EQ(gemm.problem_with_defaults({}), (ProblemSizes{{"M", d.M}, {"N", d.N}, {"K", d.K}}));
  const FamilySchema& kda = *find_family_schema("host", "kda");
  expect_problem_agrees(kda, [](const jobs::EvalSettings& s) { return kda::main_shape(s); });
  const kda::Shape k = kda::main_shape(jobs::EvalSettings{});
  EXPECT_EQ(kda.problem_with_defaults({}), (ProblemSizes{{"B", k.B}, {"H", k.H}, {"T", k.T}, {"D", k.D}}));
}

TEST(HostFamilySchema, BaselinesAreTheFamiliesOwn) {
  EXPECT_EQ(find_family_schema("host", "gemm")->baselines, host::gemm_baseline_names());
  EXPECT_EQ(find_family_schema("host", "kda")->baselines, host::kda_baseline_names());
  EXPECT_EQ(find_family_schema("host", "engine")->baselines, std::vector<std::string>{"reference"});
}

TEST(HostFamilySchema, EveryPairTheSchemaNamesHasABackendAndNoOtherDoes) {
  for (const auto& s : family_schemas()) {
    if (s.backend == "cuda") continue;  // tests/kernels_cuda/compile/family_schema_test.cpp
    const std::string family = s.family == "*" ? "gemm" : s.family;
    EXPECT_NO_THROW(make_backend(s.backend, family)) << s.pair();
  }
  EXPECT_THROW(make_backend("host", "rmsnorm"), std::invalid_argument);
  EXPECT_EQ(find_family_schema("host", "rmsnorm"), nullptr);
}

}  // namespace
}  // namespace kforge::kernels
