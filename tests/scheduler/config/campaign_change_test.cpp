// Which changes of a campaign file a campaign directory accepts (campaign_change.hpp): only search.generations,
// never below the generations done; comments and layout are no change; every refused key is listed.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kforge/scheduler/config/campaign_change.hpp"

using namespace kforge::scheduler;

namespace {

std::string small_campaign() {
  std::ifstream in(std::string(KFORGE_SOURCE_DIR) + "/tests/integration/data/gemm-small.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

}  // namespace

TEST(CampaignChange, SameTextNeedsNoUpdate) {
  EXPECT_FALSE(accept_campaign_change(small_campaign(), small_campaign(), 2, "DIR"));
}

TEST(CampaignChange, CommentsAndLayoutAreAcceptedAndStored) {
  const std::string base = small_campaign();
  const std::string edited = "# a note\n" + replaced(base, "  offspring: 8", "  offspring:    8   # more later");
  EXPECT_TRUE(campaign_differences(base, edited).empty());
  EXPECT_TRUE(accept_campaign_change(base, edited, 2, "DIR"));
}

TEST(CampaignChange, GenerationsMayGrowOrStayAboveWhatIsDone) {
  const std::string base = small_campaign();  // generations: 2
  EXPECT_TRUE(accept_campaign_change(base, replaced(base, "generations: 2", "generations: 5"), 2, "DIR"));
  EXPECT_TRUE(accept_campaign_change(base, replaced(base, "generations: 2", "generations: 1"), 1, "DIR"));
}

TEST(CampaignChange, ShrinkingBelowTheGenerationsDoneIsRefused) {
  const std::string base = small_campaign();
  try {
    accept_campaign_change(base, replaced(base, "generations: 2", "generations: 1"), 2, "/runs/x");
    FAIL() << "accepted";
  } catch (const CampaignChangeRefused& e) {
    ASSERT_EQ(e.changes().size(), 1u);
    EXPECT_EQ(e.changes()[0].rfind("search.generations: 2 -> 1 (2 generations are already done", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("/runs/x holds a campaign"), std::string::npos) << e.what();
  }
}

TEST(CampaignChange, EveryOtherChangedKeyIsListedWithItsValues) {
  const std::string base = small_campaign();
  std::string other = replaced(base, "offspring: 8", "offspring: 4");
  other = replaced(other, "MC: [16, 32, 48, 64]", "MC: [16, 32]");
  other = replaced(other, "  seed: 7\n", "");
  other = replaced(other, "generations: 2", "generations: 3");  // allowed, so not listed
  try {
    accept_campaign_change(base, other, 2, "DIR");
    FAIL() << "accepted";
  } catch (const CampaignChangeRefused& e) {
    const std::vector<std::string> expected{"search.offspring: 8 -> 4", "search.seed: 7 -> (absent)",
                                            "space.parameters.MC: [16, 32, 48, 64] -> [16, 32]"};
    EXPECT_EQ(e.changes(), expected) << e.what();
  }
}
