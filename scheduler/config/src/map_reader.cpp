// MapReader: one YAML mapping of a config file, with typed getters that reject what does not fit.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "yaml_reader.hpp"

namespace kforge::scheduler::config_detail {
namespace {

bool is_integer_text(std::string_view t) {
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

bool within(double v, const NumberRule& rule) {
  bool above_min = rule.min_open ? v > rule.min : v >= rule.min;
  bool below_max = rule.max_open ? v < rule.max : v <= rule.max;
  return above_min && below_max;
}

}  // namespace

MapReader::MapReader(const YAML::Node& node, std::string path, std::string file, std::vector<std::string> allowed_keys,
                     SourceLocation where)
    : path_(std::move(path)), file_(std::move(file)), where_(std::move(where)) {
  if (!node.IsDefined() || node.IsNull()) return;  // an absent or empty section reads as empty
  std::string expected = allowed_keys.empty() ? "a mapping" : "a mapping with keys: " + join(allowed_keys);
  const std::string self = path_.empty() ? "<document>" : path_;
  if (!node.IsMap()) throw ConfigError(where_, self, "expected a mapping, got " + describe_value(node), expected);
  where_ = location_of(node.Mark(), file_);
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // Copies: it-> returns a proxy that dies at the end of the statement.
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    SourceLocation key_where = location_of(key.Mark(), file_);
    if (!key.IsScalar())
      throw ConfigError(key_where, self, "a key must be a plain name, got " + describe_value(key), expected);
    std::string full = key_path(key.Scalar());
    if (!allowed_keys.empty() && !contains(allowed_keys, key.Scalar()))
      throw ConfigError(key_where, full, "unknown key", "allowed keys: " + join(allowed_keys));
    if (!seen.insert(key.Scalar()).second) throw ConfigError(key_where, full, "duplicate key", "each key at most once");
    entries_.emplace_back(key, value);
  }
}

const YAML::Node* MapReader::find(const std::string& key) const {
  for (const auto& [k, v] : entries_)
    if (k.Scalar() == key) return &v;
  return nullptr;
}

bool MapReader::has(const std::string& key) const { return find(key) != nullptr; }

const YAML::Node& MapReader::value(const std::string& key) const { return *find(key); }

std::string MapReader::key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

SourceLocation MapReader::where(const std::string& key) const {
  for (const auto& [k, v] : entries_) {
    if (k.Scalar() != key) continue;
    // yaml-cpp marks an empty value at the start of the next line; the key is where a person looks.
    bool value_has_mark = !v.IsNull() && !v.Mark().is_null();
    return location_of(value_has_mark ? v.Mark() : k.Mark(), file_);
  }
  return where_;
}

void MapReader::fail(const std::string& key, std::string problem, std::string allowed) const {
  throw ConfigError(where(key), key_path(key), std::move(problem), std::move(allowed));
}

void MapReader::fail_missing(const std::string& key, std::string allowed) const {
  throw ConfigError(where_, key_path(key), "missing required key", std::move(allowed));
}

void MapReader::fail_at(const YAML::Node& node, const std::string& full_key, std::string problem,
                        std::string allowed) const {
  SourceLocation at = node.Mark().is_null() ? where_ : location_of(node.Mark(), file_);
  throw ConfigError(at, full_key, std::move(problem), std::move(allowed));
}

std::string MapReader::scalar_of(const std::string& key, const std::string& expected,
                                 const std::string& allowed) const {
  const YAML::Node& v = value(key);
  if (!v.IsScalar()) fail(key, "expected " + expected + ", got " + describe_value(v), allowed);
  return v.Scalar();
}

std::int64_t MapReader::get_int64(const std::string& key, std::int64_t fallback, const IntRule& rule) const {
  if (!has(key)) return fallback;
  std::string text = scalar_of(key, "an integer", rule.allowed);
  std::int64_t v = 0;
  if (!parse_int64(text, v)) {
    if (is_integer_text(text)) fail(key, text + " is out of range", rule.allowed);  // too many digits
    fail(key, "expected an integer, got '" + text + "'", rule.allowed);
  }
  if (v < rule.min || v > rule.max) fail(key, text + " is out of range", rule.allowed);
  return v;
}

int MapReader::get_int(const std::string& key, int fallback, IntRule rule) const {
  rule.min = std::max<std::int64_t>(rule.min, std::numeric_limits<int>::min());
  rule.max = std::min<std::int64_t>(rule.max, std::numeric_limits<int>::max());
  return static_cast<int>(get_int64(key, fallback, rule));
}

std::uint64_t MapReader::get_uint64(const std::string& key, std::uint64_t fallback) const {
  if (!has(key)) return fallback;
  const std::string allowed = "an integer in [0, " + std::to_string(std::numeric_limits<std::uint64_t>::max()) + "]";
  std::string text = scalar_of(key, "an integer", allowed);
  std::string_view digits = (!text.empty() && text[0] == '+') ? std::string_view(text).substr(1) : text;
  std::uint64_t v = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (error == std::errc() && end == digits.data() + digits.size() && !digits.empty() && digits[0] != '-') return v;
  if (is_integer_text(text)) fail(key, text + " is out of range", allowed);
  fail(key, "expected an integer, got '" + text + "'", allowed);
}

double MapReader::get_number(const std::string& key, double fallback, const NumberRule& rule) const {
  if (!has(key)) return fallback;
  std::string text = scalar_of(key, "a number", rule.allowed);
  double v = 0.0;
  if (!parse_yaml_number(text, v)) fail(key, "expected a number, got '" + text + "'", rule.allowed);
  if (std::isnan(v) || !within(v, rule)) fail(key, text + " is out of range", rule.allowed);
  return v;
}

bool MapReader::get_bool(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  std::string text = scalar_of(key, "true or false", "true or false");
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  fail(key, "expected true or false, got '" + text + "'", "true or false");
}

std::string MapReader::get_string(const std::string& key, std::string fallback, const std::string& allowed) const {
  if (!has(key)) return fallback;
  return scalar_of(key, "a string", allowed);
}

std::string MapReader::require_string(const std::string& key, const std::string& allowed) const {
  if (!has(key)) fail_missing(key, allowed);
  return scalar_of(key, "a string", allowed);
}

std::vector<std::string> MapReader::get_string_list(const std::string& key, std::vector<std::string> fallback,
                                                    bool (*accept)(std::string_view),
                                                    const std::string& allowed) const {
  if (!has(key)) return fallback;
  const YAML::Node& list = value(key);
  if (!list.IsSequence()) fail(key, "expected a list, got " + describe_value(list), allowed);
  std::vector<std::string> items;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& item = list[i];
    std::string item_key = key_path(key) + "[" + std::to_string(i) + "]";
    if (!item.IsScalar()) fail_at(item, item_key, "expected a string, got " + describe_value(item), allowed);
    if (accept != nullptr && !accept(item.Scalar()))
      fail_at(item, item_key, "'" + item.Scalar() + "' is not allowed", allowed);
    for (const auto& earlier : items)
      if (earlier == item.Scalar()) fail_at(item, item_key, "duplicate value '" + earlier + "'", allowed);
    items.push_back(item.Scalar());
  }
  return items;
}

MapReader MapReader::section(const std::string& key, std::vector<std::string> allowed_keys) const {
  if (!has(key)) return MapReader(YAML::Node(), key_path(key), file_, std::move(allowed_keys), where_);
  return MapReader(value(key), key_path(key), file_, std::move(allowed_keys), where(key));
}

IntRule int_at_least(std::int64_t min) {
  return {min, std::numeric_limits<std::int64_t>::max(), "an integer >= " + std::to_string(min)};
}

IntRule int_between(std::int64_t min, std::int64_t max) {
  return {min, max, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]"};
}

NumberRule number_positive() { return {0.0, std::numeric_limits<double>::max(), true, false, "a finite number > 0"}; }

NumberRule number_closed(double min, double max) {
  return {min, max, false, false, "a number in [" + format_number(min) + ", " + format_number(max) + "]"};
}

NumberRule number_open(double min, double max) {
  return {min, max, true, true, "a number in (" + format_number(min) + ", " + format_number(max) + ")"};
}

}  // namespace kforge::scheduler::config_detail
