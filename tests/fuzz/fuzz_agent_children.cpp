// Agent children files (children.hpp): reading never throws, whatever the agent wrote; the accepted children
// become candidates.
#include <exception>

#include "../scheduler/agents/agent_test_support.hpp"
#include "fuzz_support.hpp"
#include "kforge/scheduler/agents/children.hpp"
#include "kforge/scheduler/search/search_space.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace ks = kforge::scheduler;
  static const ks::AgentBrief brief = [] {
    auto b = ks::testing::small_brief();
    b.children_wanted = 3;
    return b;
  }();
  static const ks::SearchSpace space(brief.space);
  try {
    const auto file = ks::parse_children(kforge::fuzz::text_of(data, size), ks::children_rules(brief, space));
    if (file.ok()) (void)ks::agent_candidates(file.children, brief, "fuzz", {"gemm", "host", "-O2"});
  } catch (const std::exception& e) {
    kforge::fuzz::contract_broken(std::string("reading a children file threw: ") + e.what());
  }
  return 0;
}
