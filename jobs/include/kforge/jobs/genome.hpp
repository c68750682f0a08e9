#pragma once
// A genome: the tuning parameters of one candidate, name -> value.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

namespace kforge::jobs {

using ParamValue = std::variant<std::int64_t, double, std::string>;

// Canonical text of one value: integers as decimal, doubles with %.17g and always a '.', 'e', "inf" or "nan",
// strings in double quotes with \" and \\ escaped.
std::string to_text(const ParamValue& v);
ParamValue parse_param_value(std::string_view text);  // inverse of to_text; throws std::invalid_argument

struct Genome {
  std::map<std::string, ParamValue> params;  // ordered: the canonical text is deterministic

  // "KC=256;MC=64;order=\"ikj\"": sorted by name, ';' separated. The candidate id hashes this text.
  std::string to_text() const;
  static Genome from_text(std::string_view text);  // throws std::invalid_argument naming the bad part

  bool has(const std::string& name) const { return params.count(name) != 0; }
  std::int64_t get_int(const std::string& name) const;    // throws if missing or not an integer
  double get_double(const std::string& name) const;       // integers convert
  std::string get_string(const std::string& name) const;  // throws if missing or not a string
  bool operator==(const Genome&) const = default;
};

}  // namespace kforge::jobs
