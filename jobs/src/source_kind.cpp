#include "kforge/jobs/source_kind.hpp"

namespace kforge::jobs {

bool is_ptx_source(std::string_view source) {
  while (!source.empty()) {
    const std::size_t end = source.find('\n');
    std::string_view line = source.substr(0, end);
    source = end == std::string_view::npos ? std::string_view{} : source.substr(end + 1);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line.substr(first, 2) == "//") continue;
    return line.substr(first, 8) == ".version";
  }
  return false;
}

}  // namespace kforge::jobs
