// The gemm host template: parameter checking, rendering, and the backend registry.
#include <gtest/gtest.h>

#include <stdexcept>

#include "gemm/gemm_template.hpp"
#include "host_gemm_test_support.hpp"

namespace kforge::kernels {
namespace {

using testing::GemmGenome;

std::string invalid_argument_text(const jobs::Genome& g) {
  try {
    host::gemm_params_from_genome(g);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(GemmTemplate, MissingParametersAreAllNamed) {
  jobs::Genome g = GemmGenome{}.genome();
  g.params.erase("KC");
  g.params.erase("LOOP_ORDER");
  const std::string what = invalid_argument_text(g);
  EXPECT_NE(what.find("missing"), std::string::npos) << what;
  EXPECT_NE(what.find("KC"), std::string::npos) << what;
  EXPECT_NE(what.find("LOOP_ORDER"), std::string::npos) << what;
}

TEST(GemmTemplate, UnknownParametersAreNamed) {
  jobs::Genome g = GemmGenome{}.genome();
  g.params["PREFETCH"] = std::int64_t{2};
  const std::string what = invalid_argument_text(g);
  EXPECT_NE(what.find("unknown"), std::string::npos) << what;
  EXPECT_NE(what.find("PREFETCH"), std::string::npos) << what;
}

TEST(GemmTemplate, BadValuesAreRejectedWithTheRuleTheyBreak) {
  GemmGenome odd_nr;
  odd_nr.NR = 12;
  odd_nr.VEC = 8;
  EXPECT_NE(invalid_argument_text(odd_nr.genome()).find("NR % VEC"), std::string::npos);
  GemmGenome bad_order;
  bad_order.LOOP_ORDER = "ijk";
  EXPECT_NE(invalid_argument_text(bad_order.genome()).find("LOOP_ORDER"), std::string::npos);
  jobs::Genome text_mc = GemmGenome{}.genome();
  text_mc.params["MC"] = std::string("big");
  EXPECT_NE(invalid_argument_text(text_mc).find("MC must be an integer"), std::string::npos);
  GemmGenome zero_kc;
  zero_kc.KC = 0;
  EXPECT_NE(invalid_argument_text(zero_kc.genome()).find("KC=0"), std::string::npos);
}

TEST(GemmTemplate, RenderedSourceStatesTheGenomeAndExportsTheEntryPoint) {
  const auto backend = make_backend("host", "gemm");
  const std::string source = backend->render(testing::gemm_candidate(GemmGenome{}.genome()));
  EXPECT_NE(source.find("MC=96 NC=384 KC=384 MR=6 NR=16 VEC=8 UNROLL=4 PACK=1 LOOP_ORDER=jpi"), std::string::npos);
  EXPECT_NE(source.find("extern \"C\" void kforge_gemm("), std::string::npos);
  EXPECT_NE(source.find("pack_b("), std::string::npos);
  EXPECT_NE(source.find("vector_size"), std::string::npos);
  EXPECT_EQ(source, backend->render(testing::gemm_candidate(GemmGenome{}.genome()))) << "rendering is deterministic";
}

TEST(GemmTemplate, ScalarUnpackedGenomeRendersWithoutVectorsOrPacking) {
  GemmGenome g;
  g.VEC = 1;
  g.PACK = 0;
  const std::string source = host::render_gemm_source(host::gemm_params_from_genome(g.genome()));
  EXPECT_EQ(source.find("vector_size"), std::string::npos);
  EXPECT_EQ(source.find("pack_a("), std::string::npos);
}

TEST(GemmTemplate, LoopOrderDecidesTheNestingOfTheBlockLoops) {
  for (const std::string order : {"jpi", "pji", "jip"}) {
    GemmGenome g;
    g.LOOP_ORDER = order;
    const std::string source = host::render_gemm_source(host::gemm_params_from_genome(g.genome()));
    const auto j = source.find("for (int jc"), p = source.find("for (int pc"), i = source.find("for (int ic");
    ASSERT_NE(j, std::string::npos);
    std::vector<std::pair<std::size_t, char>> nesting = {{j, 'j'}, {p, 'p'}, {i, 'i'}};
    std::sort(nesting.begin(), nesting.end());
    EXPECT_EQ(std::string({nesting[0].second, nesting[1].second, nesting[2].second}), order);
  }
}

TEST(GemmTemplate, CandidateSourceIsUsedVerbatim) {
  jobs::Genome no_params;  // a source-only candidate needs no genome
  const auto c = testing::gemm_candidate(no_params, "// hand written\n");
  EXPECT_EQ(make_backend("host", "gemm")->render(c), "// hand written\n");
}

TEST(BackendRegistry, HostGemmIsKnownAndOthersThrowListingTheKnownPairs) {
  const auto backend = make_backend("host", "gemm");
  EXPECT_EQ(backend->name(), "host");
  EXPECT_EQ(backend->family(), "gemm");
  try {
    make_backend("cuda", "softmax");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cuda/softmax"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("host/gemm"), std::string::npos);
  }
  EXPECT_THROW(make_backend("host", "conv"), std::invalid_argument);
}

}  // namespace
}  // namespace kforge::kernels
