#include "kforge/jobs/validation_case.hpp"

#include <charconv>
#include <sstream>

#include "kforge/jobs/seed.hpp"

namespace kforge::jobs {

std::string case_text(const CaseKeys& keys, std::uint64_t seed, const std::string& inputs) {
  std::string out;
  for (const auto& [key, value] : keys) out += key + "=" + std::to_string(value) + " ";
  if (!inputs.empty()) out += "inputs=" + inputs + " ";
  return out + "seed=" + std::to_string(seed);
}

namespace {
bool is_class_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}
}  // namespace

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
    if (key == "inputs") {
      const std::string_view name(first, static_cast<std::size_t>(last - first));
      if (!out.inputs.empty() || !is_class_name(name)) return std::nullopt;
      out.inputs = std::string(name);
    } else if (key == "seed") {
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
  return splitmix64(seed + kGoldenGamma * n);  // the n-th step from seed: a stream per check
}

}  // namespace kforge::jobs
