#include "node_list.hpp"

#include <cctype>

namespace kforge::scheduler::slurm_detail {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Splits at commas outside brackets: "n[1,3],m2" -> "n[1,3]", "m2".
std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      if (!current.empty()) out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

// "prefix[ranges]suffix" -> names, or false when the name is not of that form.
bool expand_one(const std::string& name, std::vector<std::string>& out) {
  const size_t open = name.find('['), close = name.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  if (name.find('[', open + 1) != std::string::npos || name.find(']', close + 1) != std::string::npos) return false;
  const std::string prefix = name.substr(0, open), suffix = name.substr(close + 1);
  std::vector<std::string> expanded;
  for (const auto& range : split_names(name.substr(open + 1, close - open - 1))) {
    const size_t dash = range.find('-');
    const std::string first = range.substr(0, dash), last = dash == std::string::npos ? first : range.substr(dash + 1);
    if (!all_digits(first) || !all_digits(last) || first.size() > 9 || last.size() > 9) return false;
    const long from = std::stol(first), to = std::stol(last);
    if (to < from || to - from > 100000) return false;
    for (long i = from; i <= to; ++i) {
      std::string digits = std::to_string(i);
      if (digits.size() < first.size()) digits.insert(0, first.size() - digits.size(), '0');
      expanded.push_back(prefix + digits + suffix);
    }
  }
  out.insert(out.end(), expanded.begin(), expanded.end());
  return true;
}

}  // namespace

std::vector<std::string> expand_node_list(const std::string& list) {
  std::vector<std::string> out;
  for (const auto& name : split_names(list)) {
    if (!expand_one(name, out)) out.push_back(name);
  }
  return out;
}

}  // namespace kforge::scheduler::slurm_detail
