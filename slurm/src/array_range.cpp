#include "kforge/slurm/array_range.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string>

namespace kforge::slurm {
namespace {

[[noreturn]] void reject(std::string_view expression, const std::string& why) {
  throw std::invalid_argument("job array expression '" + std::string(expression) + "': " + why);
}

std::uint32_t parse_number(std::string_view text, std::string_view expression) {
  std::uint32_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end)
    reject(expression, "'" + std::string(text) + "' is not an index");
  return value;
}

// One comma-separated element: "7", "0-15" or "0-15:3".
void append_element(std::string_view element, std::string_view expression, std::vector<std::uint32_t>& out) {
  const auto dash = element.find('-');
  if (dash == std::string_view::npos) {
    out.push_back(parse_number(element, expression));
    return;
  }
  std::string_view rest = element.substr(dash + 1);
  std::uint32_t step = 1;
  if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
    step = parse_number(rest.substr(colon + 1), expression);
    rest = rest.substr(0, colon);
    if (step == 0) reject(expression, "step 0");
  }
  const std::uint32_t first = parse_number(element.substr(0, dash), expression);
  const std::uint32_t last = parse_number(rest, expression);
  if (last < first) reject(expression, "range " + std::string(element) + " runs backwards");
  // Slurm caps MaxArraySize at 4000001; refusing more keeps a typo from allocating gigabytes here.
  if (last - first > 4'000'001U)
    reject(expression, "range " + std::string(element) + " exceeds any Slurm MaxArraySize");
  for (std::uint64_t i = first; i <= last; i += step) out.push_back(static_cast<std::uint32_t>(i));
}

}  // namespace

ArrayRange parse_array_range(std::string_view expression) {
  ArrayRange range;
  std::string_view list = expression;
  if (const auto percent = list.find('%'); percent != std::string_view::npos) {
    range.throttle = parse_number(list.substr(percent + 1), expression);
    list = list.substr(0, percent);
  }
  if (list.empty()) reject(expression, "no indices");
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (comma + 1 == list.size()) reject(expression, "empty element after ','");
    append_element(list.substr(0, comma), expression, range.indices);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  std::sort(range.indices.begin(), range.indices.end());
  range.indices.erase(std::unique(range.indices.begin(), range.indices.end()), range.indices.end());
  return range;
}

}  // namespace kforge::slurm
