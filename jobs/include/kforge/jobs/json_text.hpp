#pragma once
// JSON text, written by hand: what kforge writes as JSON (reports, agent briefs, status, outside-kernel cases,
// benchmark figures) is a handful of value kinds, so a string escaper, a number formatter and a small streaming
// writer serve every part of it, and every part escapes alike.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::jobs {

// `text` as a JSON string, quotes included: '"' and '\\' escaped, \n \r \t by name, other control bytes as
// \u00XX. Bytes from 0x80 on pass through: kforge's texts (sources, evidence) are UTF-8.
std::string json_string(std::string_view text);

// A number as JSON: NaN and the infinities (JSON has neither: an unmeasured figure) as null, else printf's %.*g
// with `significant_digits` (9 for figures people read; 17 to read the same double back).
std::string json_number(double value, int significant_digits = 9);

// A streaming writer: objects, arrays, keys and values, with the commas in the right places.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(std::int64_t n);
  JsonWriter& value(int n) { return value(static_cast<std::int64_t>(n)); }
  JsonWriter& value(double d);  // json_number: 9 significant digits, null when not finite
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

 private:
  JsonWriter& open(char c);
  JsonWriter& close(char c);
  void separate();  // the comma before a value or key that is not the first of its object or array

  std::ostream& out_;
  std::vector<bool> first_;  // per open object or array: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace kforge::jobs
