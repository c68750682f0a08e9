#pragma once
// Typed, validating access to the YAML of a config file (private to src/config).
// Every failure is a ConfigError naming FILE:LINE:COLUMN, the dotted key, the problem and what is allowed,
// so a person can fix the file without reading this code.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler::config_detail {

// Config files are small: a larger one is a mistake (or /dev/zero), refused before it is read whole.
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{1} << 20;

// Reads a whole regular file of at most kMaxConfigFileBytes; throws ConfigError (key "<file>") naming strerror,
// the kind of file (a FIFO, a directory, a character device) or the size when it cannot.
std::string read_config_file(const std::filesystem::path& file);

// YAML::Load that turns a syntax error into ConfigError with key "<yaml>".
YAML::Node load_yaml(const std::string& text, const std::string& file);

// 1-based location of a mark; an unknown mark (-1) becomes 1:1 so every message has a usable position.
SourceLocation location_of(const YAML::Mark& mark, const std::string& file);

// "a list", "a mapping", "nothing" or "'text'": what a wrong value looked like, for messages.
std::string describe_value(const YAML::Node& node);

bool is_identifier(std::string_view text);      // [A-Za-z_][A-Za-z0-9_]*
bool is_safe_file_name(std::string_view text);  // [A-Za-z0-9._-]+, not "." or ".."

// Parses a decimal integer ("-12", "+7"); false if the text is anything else or does not fit.
bool parse_int64(std::string_view text, std::int64_t& out);
// Parses a YAML 1.2 float or integer ("1.5", "2e-3", "7", ".inf", "-.Inf", ".nan").
bool parse_yaml_number(std::string_view text, double& out);

struct IntRule {
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
  std::string allowed;  // e.g. "an integer >= 2"
};
IntRule int_at_least(std::int64_t min);
IntRule int_between(std::int64_t min, std::int64_t max);

struct NumberRule {
  double min = 0.0;
  double max = 0.0;
  bool min_open = false;  // true: min itself is not allowed
  bool max_open = false;
  std::string allowed;  // e.g. "a number > 0"
};
NumberRule number_positive();
NumberRule number_closed(double min, double max);
NumberRule number_open(double min, double max);

// One YAML mapping at a dotted path ("search", "space.parameters"). The constructor checks that the node is a
// mapping (an absent section reads as empty) and rejects duplicate keys and, unless allowed_keys is empty,
// keys not in allowed_keys.
class MapReader {
 public:
  MapReader(const YAML::Node& node, std::string path, std::string file, std::vector<std::string> allowed_keys,
            SourceLocation where);

  bool has(const std::string& key) const;
  const YAML::Node& value(const std::string& key) const;  // only when has(key)
  std::string key_path(const std::string& key) const;     // "search" + "elite" -> "search.elite"
  SourceLocation where() const { return where_; }         // the mapping itself (or its parent key)
  SourceLocation where(const std::string& key) const;     // the value, or the key when the value is empty
  const std::string& file() const { return file_; }
  const std::vector<std::pair<YAML::Node, YAML::Node>>& entries() const { return entries_; }

  [[noreturn]] void fail(const std::string& key, std::string problem, std::string allowed) const;
  [[noreturn]] void fail_missing(const std::string& key, std::string allowed) const;
  // Fails at node (an element of a list, say) under the full dotted key; falls back to this mapping's location.
  [[noreturn]] void fail_at(const YAML::Node& node, const std::string& full_key, std::string problem,
                            std::string allowed) const;

  std::int64_t get_int64(const std::string& key, std::int64_t fallback, const IntRule& rule) const;
  int get_int(const std::string& key, int fallback, IntRule rule) const;  // rule is clamped to int's range
  std::uint64_t get_uint64(const std::string& key, std::uint64_t fallback) const;
  double get_number(const std::string& key, double fallback, const NumberRule& rule) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key, std::string fallback, const std::string& allowed) const;
  std::string require_string(const std::string& key, const std::string& allowed) const;
  // A list of strings; each must satisfy accept(text), values must be distinct.
  std::vector<std::string> get_string_list(const std::string& key, std::vector<std::string> fallback,
                                           bool (*accept)(std::string_view), const std::string& allowed) const;
  // A nested mapping; absent reads as an empty mapping located at this one.
  MapReader section(const std::string& key, std::vector<std::string> allowed_keys) const;

 private:
  const YAML::Node* find(const std::string& key) const;
  std::string scalar_of(const std::string& key, const std::string& expected, const std::string& allowed) const;

  std::string path_;
  std::string file_;
  SourceLocation where_;
  std::vector<std::pair<YAML::Node, YAML::Node>> entries_;  // (key, value) in source order
};

// Shortest readable text of a bound in a message: 0, 1, 0.5, 1e+06.
std::string format_number(double v);

// Joins names for an "allowed" text: "allowed keys: a, b, c".
std::string join(const std::vector<std::string>& names, std::string_view separator = ", ");

}  // namespace kforge::scheduler::config_detail
