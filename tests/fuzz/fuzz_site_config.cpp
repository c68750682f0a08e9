// Site files (docs/site-schema.md): any text either parses or throws ConfigError, nothing else.
#include "fuzz_support.hpp"
#include "kforge/scheduler/config/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)kforge::scheduler::parse_site(kforge::fuzz::text_of(data, size), "site.yaml");
  } catch (const kforge::scheduler::ConfigError&) {
    // the documented outcome of a bad file; any other exception escapes and stops the fuzzer
  }
  return 0;
}
