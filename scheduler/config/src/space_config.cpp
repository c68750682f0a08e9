// The space section: tuning parameters with their value lists, and constraints kept as text.
#include <cmath>
#include <string>
#include <variant>

#include "campaign_sections.hpp"

namespace kforge::scheduler::config_detail {

// YAML ints -> int64, floats -> double, anything else (and every quoted scalar) -> string.
jobs::ParamValue typed_value(const MapReader& params, const YAML::Node& item, const std::string& key,
                             const char* allowed) {
  if (!item.IsScalar()) params.fail_at(item, key, "expected a value, got " + describe_value(item), allowed);
  const std::string& text = item.Scalar();
  if (item.Tag() != "?") return text;  // quoted or explicitly tagged: the user said "string"
  std::int64_t integer = 0;
  if (parse_int64(text, integer)) return integer;
  double number = 0.0;
  if (parse_yaml_number(text, number)) {
    if (!std::isfinite(number)) params.fail_at(item, key, text + " is not a finite number", allowed);
    if (text.find_first_of(".eE") == std::string::npos)
      params.fail_at(item, key, text + " is out of range", "integers fit in 64 bits");
    return number;
  }
  return text;
}

// 1 and 1.0 are the same setting for a kernel, so they count as duplicates too.
bool same_value(const jobs::ParamValue& a, const jobs::ParamValue& b) {
  if (a == b) return true;
  auto as_number = [](const jobs::ParamValue& v, double& out) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return out = static_cast<double>(*i), true;
    if (const auto* d = std::get_if<double>(&v)) return out = *d, true;
    return false;
  };
  double x = 0.0;
  double y = 0.0;
  return as_number(a, x) && as_number(b, y) && x == y;
}

namespace {

const char* const kValuesAllowed = "a non-empty list of distinct values, e.g. [16, 32, 64]";

ParameterSpec read_parameter(const MapReader& params, const YAML::Node& name_node, const YAML::Node& list) {
  ParameterSpec spec;
  spec.name = name_node.Scalar();
  spec.where = location_of(name_node.Mark(), params.file());
  const std::string key = params.key_path(spec.name);
  if (!is_identifier(spec.name))
    params.fail_at(name_node, key, "'" + spec.name + "' is not an identifier",
                   "a parameter name [A-Za-z_][A-Za-z0-9_]*, e.g. MC");
  if (!list.IsSequence())
    params.fail(spec.name, "expected a list of values, got " + describe_value(list), kValuesAllowed);
  if (list.size() == 0) params.fail(spec.name, "empty list of values", kValuesAllowed);
  for (std::size_t i = 0; i < list.size(); ++i) {
    jobs::ParamValue value = typed_value(params, list[i], key, kValuesAllowed);
    for (const auto& earlier : spec.values)
      if (same_value(earlier, value))
        params.fail_at(list[i], key, "duplicate value " + list[i].Scalar(), kValuesAllowed);
    spec.values.push_back(std::move(value));
  }
  return spec;
}

std::vector<ConstraintSpec> read_constraints(const MapReader& space) {
  const std::string allowed = "a list of expressions over the parameters, e.g. [\"MC % MR == 0\"]";
  std::vector<ConstraintSpec> constraints;
  if (!space.has("constraints")) return constraints;
  const YAML::Node& list = space.value("constraints");
  if (list.IsNull()) return constraints;
  if (!list.IsSequence()) space.fail("constraints", "expected a list, got " + describe_value(list), allowed);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& item = list[i];
    const std::string key = space.key_path("constraints") + "[" + std::to_string(i) + "]";
    if (!item.IsScalar()) space.fail_at(item, key, "expected an expression, got " + describe_value(item), allowed);
    if (item.Scalar().find_first_not_of(" \t") == std::string::npos)
      space.fail_at(item, key, "empty expression", allowed);
    constraints.push_back({item.Scalar(), location_of(item.Mark(), space.file())});
  }
  return constraints;
}

}  // namespace

SpaceSpec read_space(const MapReader& top, std::map<std::string, SourceLocation>& where) {
  if (!top.has("space")) top.fail_missing("space", "a mapping with keys: parameters, constraints");
  MapReader space = top.section("space", {"parameters", "constraints"});
  const std::string allowed = "a mapping NAME: [values] with at least one parameter";
  if (!space.has("parameters")) space.fail_missing("parameters", allowed);
  MapReader params = space.section("parameters", {});
  if (params.entries().empty()) space.fail("parameters", "no parameters", allowed);
  SpaceSpec spec;
  for (const auto& [name, list] : params.entries()) {
    spec.parameters.push_back(read_parameter(params, name, list));
    record_where(where, params, name.Scalar());
  }
  record_where(where, space, "parameters");
  record_where(where, space, "constraints");
  spec.constraints = read_constraints(space);
  return spec;
}

}  // namespace kforge::scheduler::config_detail
