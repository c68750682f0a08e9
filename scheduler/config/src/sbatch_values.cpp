// Site values that end up in a batch script or a job description (partition, GRES, account, ...): one with a
// line break or a "#SBATCH" would add directives or commands of its own to the script, so it is refused at load.
#include <cstdio>
#include <string>

#include "site_sections.hpp"

namespace kforge::scheduler::config_detail {

std::string sbatch_unsafe(std::string_view text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') return "contains a line break";
    if (byte < 0x20 || byte == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", byte);
      return std::string("contains the control character ") + hex;
    }
  }
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  if (upper.find("#SBATCH") != std::string::npos) return "contains '#SBATCH'";
  return "";
}

std::string get_sbatch_string(const MapReader& m, const std::string& key, std::string fallback,
                              const std::string& allowed) {
  std::string text = m.get_string(key, std::move(fallback), allowed);
  require_sbatch_safe(m, m.has(key) ? m.value(key) : YAML::Node(), m.key_path(key), text, allowed);
  return text;
}

void require_sbatch_safe(const MapReader& m, const YAML::Node& node, const std::string& full_key,
                         const std::string& text, const std::string& allowed) {
  const std::string why = sbatch_unsafe(text);
  if (!why.empty())
    m.fail_at(node, full_key, why,
              allowed + "; one line without control characters or '#SBATCH' (it goes into the batch script)");
}

}  // namespace kforge::scheduler::config_detail
