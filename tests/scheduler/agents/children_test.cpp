// The children file: good entries become candidates, bad ones are rejected with a reason, garbage is a failure.
#include <gtest/gtest.h>

#include "agent_test_support.hpp"
#include "kforge/scheduler/agents/children.hpp"

namespace kforge::scheduler {
namespace {

class ChildrenFileTest : public ::testing::Test {
 protected:
  SearchSpace space{testing::small_space()};
  AgentBrief brief = [] {
    auto b = testing::small_brief();
    b.children_wanted = 3;
    return b;
  }();
  ChildrenFile parse(const std::string& text) { return parse_children(text, children_rules(brief, space)); }
  std::string reason(const ChildrenFile& file, int index) {
    for (const auto& r : file.rejected)
      if (r.index == index) return r.reason;
    return "<not rejected>";
  }
};

TEST_F(ChildrenFileTest, GoodGenomeAndSourceChildrenAreAccepted) {
  const auto file = parse(R"(children:
  - genome: {MC: 16, ORDER: pji, ALPHA: 0.5}
    rationale: smaller blocks
  - source: |
      int f() { return 2; }
    parents: [aaaa0000aaaa0000aaaa0000aaaa0000]
    rationale: returns two
)");
  ASSERT_TRUE(file.ok()) << file.failure;
  EXPECT_TRUE(file.rejected.empty());
  ASSERT_EQ(file.children.size(), 2U);
  EXPECT_EQ(file.children[0].genome.to_text(), "ALPHA=0.5;MC=16;ORDER=\"pji\"");
  EXPECT_EQ(file.children[0].rationale, "smaller blocks");
  EXPECT_EQ(file.children[1].source, "int f() { return 2; }\n");
  EXPECT_EQ(file.children[1].index, 1);
}

TEST_F(ChildrenFileTest, JsonChildrenFileIsAccepted) {
  const auto file = parse(R"({"children": [{"genome": {"MC": 32, "ORDER": "jpi", "ALPHA": 1}}]})");
  ASSERT_TRUE(file.ok()) << file.failure;
  ASSERT_EQ(file.children.size(), 1U);
  EXPECT_EQ(file.children[0].genome.params.at("ALPHA"), jobs::ParamValue{1.0});  // the listed double
}

TEST_F(ChildrenFileTest, EachBadEntryIsRejectedWithItsReasonAndTheRestKept) {
  const auto file = parse(R"(children:
  - genome: {MC: 16, ORDER: jpi, ALPHA: 0.5, BOGUS: 1}
  - genome: {MC: 17, ORDER: jpi, ALPHA: 0.5}
  - genome: {MC: 64, ORDER: jpi, ALPHA: 0.5}
)");
  ASSERT_TRUE(file.ok()) << file.failure;
  EXPECT_TRUE(file.children.empty());
  EXPECT_NE(reason(file, 0).find("unknown parameter 'BOGUS'"), std::string::npos) << reason(file, 0);
  EXPECT_NE(reason(file, 1).find("MC=17 is not one of the listed values (16, 32, 64)"), std::string::npos)
      << reason(file, 1);
  EXPECT_NE(reason(file, 2).find("violates a constraint"), std::string::npos) << reason(file, 2);
}

// An engine's `activations` picks the contract it is held to (docs/engines.md, "Activations"): an agent may not
// declare bf16 activations, and so the looser tolerance, where the campaign's space does not list the key.
TEST_F(ChildrenFileTest, AnAgentCannotDeclareAContractTheSpaceDoesNotList) {
  const auto file = parse(R"(children:
  - genome: {MC: 32, ORDER: jpi, ALPHA: 0.5, activations: bf16}
)");
  ASSERT_TRUE(file.ok()) << file.failure;
  EXPECT_TRUE(file.children.empty());
  EXPECT_NE(reason(file, 0).find("unknown parameter 'activations'"), std::string::npos) << reason(file, 0);
}

TEST_F(ChildrenFileTest, MissingPartsUnknownParentsAndExtraEntriesAreRejected) {
  brief.children_wanted = 3;
  const auto file = parse(R"(children:
  - rationale: nothing else
  - genome: {MC: 32, ORDER: jpi}
  - source: "int g();"
    parents: [not-a-parent]
  - just a string
)");
  EXPECT_NE(reason(file, 0).find("neither genome nor source"), std::string::npos) << reason(file, 0);
  EXPECT_NE(reason(file, 1).find("missing parameter(s) ALPHA"), std::string::npos) << reason(file, 1);
  EXPECT_NE(reason(file, 2).find("'not-a-parent' is not a parent"), std::string::npos) << reason(file, 2);
  EXPECT_NE(reason(file, 3).find("beyond the 3 children asked for"), std::string::npos) << reason(file, 3);
}

TEST_F(ChildrenFileTest, ADeclaredSourceKindMustMatchTheSourceAndTheBackend) {
  brief.backend = "cuda";
  brief.children_wanted = 6;
  const auto file = parse(R"(children:
  - source_kind: ptx
    source: |
      // an edited kernel
      .version 8.8
      .target sm_90a
  - source_kind: cuda
    source: "extern \"C\" __global__ void k() {}"
  - source_kind: ptx
    source: "extern \"C\" __global__ void k() {}"
  - source_kind: cuda
    source: ".version 8.8"
  - source_kind: fortran
    source: "x"
  - source_kind: ptx
    genome: {MC: 16, ORDER: pji, ALPHA: 0.5}
)");
  ASSERT_TRUE(file.ok()) << file.failure;
  ASSERT_EQ(file.children.size(), 2U);
  EXPECT_NE(reason(file, 2).find("source_kind: ptx, but the source's first statement is not a PTX .version"),
            std::string::npos)
      << reason(file, 2);
  EXPECT_NE(reason(file, 3).find("source_kind: cuda, but the source is PTX"), std::string::npos) << reason(file, 3);
  EXPECT_NE(reason(file, 4).find("must be ptx, cuda or cpp"), std::string::npos) << reason(file, 4);
  EXPECT_NE(reason(file, 5).find("source_kind: ptx without a source"), std::string::npos) << reason(file, 5);
  brief.backend = "host";
  const auto host = parse("children:\n  - {source_kind: ptx, source: \".version 8.8\"}\n");
  EXPECT_NE(reason(host, 0).find("ptx needs the cuda backend (this campaign's is host)"), std::string::npos)
      << reason(host, 0);
}

TEST_F(ChildrenFileTest, PartlyGoodFileKeepsTheGoodEntries) {
  const auto file = parse(R"(children:
  - genome: {MC: 99, ORDER: jpi, ALPHA: 0.5}
  - genome: {MC: 32, ORDER: jpi, ALPHA: 0.5}
)");
  ASSERT_EQ(file.children.size(), 1U);
  EXPECT_EQ(file.children[0].index, 1);
  ASSERT_EQ(file.rejected.size(), 1U);
  EXPECT_EQ(file.rejected[0].index, 0);
}

TEST_F(ChildrenFileTest, GarbageIsAWholeFileFailureNotAnException) {
  for (const std::string garbage : {"children: [unclosed", "", "just: a map", "{]]]", "\x01\x02\xff binary"}) {
    const auto file = parse(garbage);
    EXPECT_FALSE(file.ok()) << garbage;
    EXPECT_TRUE(file.children.empty());
  }
}

TEST_F(ChildrenFileTest, MissingFileIsAFailureNamingIt) {
  const auto file = read_children("/nonexistent/children.yaml", children_rules(brief, space));
  EXPECT_NE(file.failure.find("/nonexistent/children.yaml"), std::string::npos) << file.failure;
}

TEST_F(ChildrenFileTest, CandidatesCarryAgentOpLineageAndSourceHashedIds) {
  const auto file = parse(R"(children:
  - genome: {MC: 32, ORDER: jpi, ALPHA: 1.0}
  - source: "int f() { return 3; }\n"
    parents: [bbbb1111bbbb1111bbbb1111bbbb1111]
  - genome: {MC: 32, ORDER: jpi, ALPHA: 1.0}
    source: "int f() { return 3; }\n"
)");
  ASSERT_EQ(file.children.size(), 3U);
  const CandidateTemplate tmpl{"gemm", "host", "-O2"};
  const auto candidates = agent_candidates(file.children, brief, "rewriter", tmpl);
  ASSERT_EQ(candidates.size(), 3U);
  const auto& by_genome = candidates[0];
  EXPECT_EQ(by_genome.op, "agent:rewriter");
  EXPECT_EQ(by_genome.generation, 3);
  EXPECT_EQ(by_genome.island, 1);
  EXPECT_EQ(by_genome.parents.size(), 2U);  // no parents named: all of the brief's
  EXPECT_EQ(by_genome.compile_flags, "-O2");
  EXPECT_EQ(by_genome.id, jobs::candidate_id(by_genome));
  // Same genome as parent 0, but with a source: a different candidate.
  EXPECT_NE(candidates[2].id, by_genome.id);
  EXPECT_EQ(candidates[2].genome, by_genome.genome);
  // Source only: keeps its named parent's genome.
  EXPECT_EQ(candidates[1].parents, std::vector<std::string>{"bbbb1111bbbb1111bbbb1111bbbb1111"});
  EXPECT_EQ(candidates[1].genome, brief.parents[1].candidate.genome);
}

TEST_F(ChildrenFileTest, DuplicateChildrenBecomeOneCandidate) {
  const auto file = parse(R"(children:
  - genome: {MC: 16, ORDER: jpi, ALPHA: 1.0}
  - genome: {MC: 16, ORDER: jpi, ALPHA: 1.0}
)");
  EXPECT_EQ(agent_candidates(file.children, brief, "x", {"gemm", "host", ""}).size(), 1U);
}

// Manifests and shards could not carry such bytes unchanged (fuzz_task_manifest): the entry is rejected, not altered.
TEST_F(ChildrenFileTest, SourceOrRationaleThatIsNotUtf8IsRejectedWithItsReason) {
  const auto file = parse(
      "children:\n"
      "  - source: \"int f() { return 4; } // \xCA\xD0\"\n"
      "  - genome: {MC: 16, ORDER: jpi, ALPHA: 1.0}\n"
      "    rationale: \"\xFF\"\n"
      "  - source: \"int f() { return 5; } // \xC3\xA9\"\n");
  ASSERT_TRUE(file.ok()) << file.failure;
  EXPECT_EQ(reason(file, 0), "children[0]: source: not valid UTF-8 text");
  EXPECT_EQ(reason(file, 1), "children[1]: rationale: not valid UTF-8 text");
  ASSERT_EQ(file.children.size(), 1U);
  EXPECT_EQ(file.children[0].source, "int f() { return 5; } // \xC3\xA9");
}

}  // namespace
}  // namespace kforge::scheduler
