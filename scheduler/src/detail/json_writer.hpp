#pragma once
// A minimal streaming JSON writer for reports: objects, arrays, strings escaped, non-finite numbers as null.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::scheduler::detail {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k) {
    separate();
    write_string(k);
    out_ << ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view s) { separate(); write_string(s); return *this; }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) { separate(); out_ << (b ? "true" : "false"); return *this; }
  JsonWriter& value(std::int64_t n) { separate(); out_ << n; return *this; }
  JsonWriter& value(int n) { return value(static_cast<std::int64_t>(n)); }
  JsonWriter& value(double d) {
    separate();
    if (!std::isfinite(d)) {
      out_ << "null";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", d);
      out_ << buf;
    }
    return *this;
  }
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) { key(k); return value(v); }

 private:
  JsonWriter& open(char c) {
    separate();
    out_ << c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    first_.pop_back();
    out_ << c;
    return *this;
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ << ',';
      first_.back() = false;
    }
  }
  void write_string(std::string_view s) {
    out_ << '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ << "\\\""; break;
        case '\\': out_ << "\\\\"; break;
        case '\n': out_ << "\\n"; break;
        case '\r': out_ << "\\r"; break;
        case '\t': out_ << "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ << buf;
          } else {
            out_ << c;
          }
      }
    }
    out_ << '"';
  }

  std::ostream& out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace kforge::scheduler::detail
