#pragma once
// A small line-based "key=value" text format for messages between kforge processes (child -> rank,
// worker rank -> rank 0). Values are escaped so that any byte string fits on one line.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/jobs/record.hpp"

namespace kforge::mpi_eval {

std::string escape_value(std::string_view raw);     // '\\' -> "\\\\", '\n' -> "\\n", '\r' -> "\\r", '\0' -> "\\0"
std::string unescape_value(std::string_view text);  // inverse; throws std::invalid_argument on a bad escape

std::string double_text(double v);                                    // %.17g; "nan", "inf", "-inf" round-trip
double parse_double(std::string_view text, std::string_view key);     // throws std::invalid_argument
std::int64_t parse_int(std::string_view text, std::string_view key);  // throws std::invalid_argument
std::string doubles_text(const std::vector<double>& v);               // comma separated
std::vector<double> parse_doubles(std::string_view text, std::string_view key);

// Writes key=value lines in the order given.
class KvWriter {
 public:
  explicit KvWriter(std::string_view header);                   // first line, e.g. "kforge-record 1"
  KvWriter& put(std::string_view key, std::string_view value);  // escapes value
  KvWriter& put(std::string_view key, double value);
  KvWriter& put(std::string_view key, std::int64_t value);
  std::string str() const { return text_; }

 private:
  std::string text_;
};

// Parses text written by KvWriter; later duplicate keys are an error.
class KvReader {
 public:
  KvReader(std::string_view text, std::string_view header);  // throws std::invalid_argument on a wrong header
  bool has(std::string_view key) const;
  std::string text(std::string_view key) const;  // unescaped; throws if missing
  double real(std::string_view key) const;
  std::int64_t integer(std::string_view key) const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

// Named figures (jobs::Metric) under `prefix`: PREFIX.count, then PREFIX.N.name / .unit / .value. A reader of a
// message without PREFIX.count gets none (kernel records carry no metrics).
void put_metrics(KvWriter& out, std::string_view prefix, const std::vector<jobs::Metric>& metrics);
std::vector<jobs::Metric> get_metrics(const KvReader& in, std::string_view prefix);

}  // namespace kforge::mpi_eval
