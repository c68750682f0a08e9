#include "yaml_values.hpp"

#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <variant>

namespace kforge::scheduler::agent_yaml {
namespace {

std::optional<std::int64_t> whole_int(const std::string& text) {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> whole_double(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<jobs::ParamValue> typed_value(const YAML::Node& node) {
  if (!node.IsScalar()) return std::nullopt;
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return jobs::ParamValue{text};  // quoted
  if (const auto i = whole_int(text)) return jobs::ParamValue{*i};
  try {
    const auto parsed = jobs::parse_param_value(text);
    if (std::holds_alternative<double>(parsed)) return parsed;
  } catch (const std::invalid_argument&) {
  }
  if (const auto d = whole_double(text)) return jobs::ParamValue{*d};
  return jobs::ParamValue{text};
}

bool denotes(const YAML::Node& node, const jobs::ParamValue& listed) {
  if (!node.IsScalar()) return false;
  const std::string& text = node.Scalar();
  if (const auto* i = std::get_if<std::int64_t>(&listed)) {
    const auto value = whole_int(text);
    return value && *value == *i;
  }
  if (const auto* d = std::get_if<double>(&listed)) {
    const auto value = whole_double(text);
    return value && *value == *d;
  }
  return text == std::get<std::string>(listed);
}

std::string scalar_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsSequence()) return "<a list>";
  if (node.IsMap()) return "<a map>";
  return "<null>";
}

}  // namespace kforge::scheduler::agent_yaml
