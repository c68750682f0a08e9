#include "kforge/jobs/json_text.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace kforge::jobs {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
          out += escape;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double value, int significant_digits) {
  if (!std::isfinite(value)) return "null";
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", significant_digits, value);
  return text;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  out_ << json_string(k) << ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  out_ << json_string(s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ << (b ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t n) {
  separate();
  out_ << n;
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  separate();
  out_ << json_number(d);
  return *this;
}

JsonWriter& JsonWriter::open(char c) {
  separate();
  out_ << c;
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::close(char c) {
  first_.pop_back();
  out_ << c;
  return *this;
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ << ',';
    first_.back() = false;
  }
}

}  // namespace kforge::jobs
