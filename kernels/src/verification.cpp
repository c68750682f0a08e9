#include "verification.hpp"

#include <charconv>
#include <sstream>

#include "kforge/jobs/seed.hpp"

namespace kforge::kernels {

std::string case_text(const CaseKeys& keys, std::uint64_t seed) {
  std::string out;
  for (const auto& [key, value] : keys) out += key + "=" + std::to_string(value) + " ";
  return out + "seed=" + std::to_string(seed);
}

std::optional<ParsedCase> parse_case(std::string_view text) {
  ParsedCase out;
  bool seeded = false;
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) {
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    const std::string key = word.substr(0, eq);
    const char* first = word.data() + eq + 1;
    const char* last = word.data() + word.size();
    if (key == "seed") {
      if (std::from_chars(first, last, out.seed).ptr != last || first == last) return std::nullopt;
      seeded = true;
    } else {
      std::int64_t value = 0;
      if (std::from_chars(first, last, value).ptr != last || first == last) return std::nullopt;
      out.keys[key] = value;
    }
  }
  if (!seeded) return std::nullopt;
  return out;
}

std::uint64_t standard_case_seed(std::uint64_t seed, std::size_t n) {
  return jobs::splitmix64(seed + jobs::kGoldenGamma * n);  // the n-th step from seed: a stream per shape
}

}  // namespace kforge::kernels
