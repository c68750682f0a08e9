// Agent briefs read back (brief.hpp, parse_brief): any text either parses or throws std::runtime_error; a brief
// that parsed is written again by brief_to_yaml / brief_to_json, and that YAML parses back.
#include <stdexcept>

#include "fuzz_support.hpp"
#include "kforge/scheduler/agents/brief.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kforge::scheduler::AgentBrief brief;
  try {
    brief = kforge::scheduler::parse_brief(kforge::fuzz::text_of(data, size));
  } catch (const std::runtime_error&) {
    return 0;  // the documented outcome of a bad brief
  }
  (void)kforge::scheduler::brief_to_json(brief);
  const std::string again = kforge::scheduler::brief_to_yaml(brief);
  try {
    (void)kforge::scheduler::parse_brief(again);
  } catch (const std::runtime_error& e) {
    kforge::fuzz::contract_broken(std::string("a brief kforge wrote does not parse back: ") + e.what() + "\n" + again);
  }
  return 0;
}
