#include "kv_text.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace kforge::mpi_eval {
namespace {

[[noreturn]] void bad(std::string_view what, std::string_view key) {
  throw std::invalid_argument(std::string(what) + " (key '" + std::string(key) + "')");
}

}  // namespace

std::string escape_value(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\0':
        out += "\\0";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string unescape_value(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size()) throw std::invalid_argument("value ends inside an escape: " + std::string(text));
    switch (text[i]) {
      case '\\':
        out += '\\';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case '0':
        out += '\0';
        break;
      default:
        throw std::invalid_argument(std::string("unknown escape \\") + text[i]);
    }
  }
  return out;
}

std::string double_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double parse_double(std::string_view text, std::string_view key) {
  if (text == "nan") return std::nan("");
  if (text == "inf") return HUGE_VAL;
  if (text == "-inf") return -HUGE_VAL;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) bad("not a number: '" + s + "'", key);
  return v;
}

std::int64_t parse_int(std::string_view text, std::string_view key) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    bad("not an integer: '" + std::string(text) + "'", key);
  }
  return v;
}

std::string doubles_text(const std::vector<double>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + double_text(v[i]);
  return out;
}

std::vector<double> parse_doubles(std::string_view text, std::string_view key) {
  std::vector<double> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    out.push_back(parse_double(text.substr(0, comma), key));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

KvWriter::KvWriter(std::string_view header) : text_(std::string(header) + "\n") {}

KvWriter& KvWriter::put(std::string_view key, std::string_view value) {
  text_.append(key).append("=").append(escape_value(value)).append("\n");
  return *this;
}
KvWriter& KvWriter::put(std::string_view key, double value) { return put(key, std::string_view(double_text(value))); }
KvWriter& KvWriter::put(std::string_view key, std::int64_t value) {
  return put(key, std::string_view(std::to_string(value)));
}

KvReader::KvReader(std::string_view text, std::string_view header) {
  const auto first = text.find('\n');
  if (text.substr(0, first) != header) {
    throw std::invalid_argument("expected a message starting with '" + std::string(header) + "', got '" +
                                std::string(text.substr(0, std::min<std::size_t>(first, 60))) + "'");
  }
  text.remove_prefix(first == std::string_view::npos ? text.size() : first + 1);
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) bad("line without '='", line.substr(0, 60));
    const std::string_view key = line.substr(0, eq);
    if (!values_.emplace(std::string(key), std::string(line.substr(eq + 1))).second) bad("duplicate key", key);
  }
}

bool KvReader::has(std::string_view key) const { return values_.find(key) != values_.end(); }

std::string KvReader::text(std::string_view key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) bad("missing key", key);
  return unescape_value(it->second);
}

double KvReader::real(std::string_view key) const { return parse_double(text(key), key); }
std::int64_t KvReader::integer(std::string_view key) const { return parse_int(text(key), key); }

void put_metrics(KvWriter& out, std::string_view prefix, const std::vector<jobs::Metric>& metrics) {
  const std::string p(prefix);
  out.put(p + ".count", static_cast<std::int64_t>(metrics.size()));
  for (std::size_t n = 0; n < metrics.size(); ++n) {
    const std::string at = p + "." + std::to_string(n);
    out.put(at + ".name", metrics[n].name).put(at + ".unit", metrics[n].unit).put(at + ".value", metrics[n].value);
  }
}

std::vector<jobs::Metric> get_metrics(const KvReader& in, std::string_view prefix) {
  const std::string p(prefix);
  if (!in.has(p + ".count")) return {};
  const std::int64_t count = in.integer(p + ".count");
  if (count < 0 || count > 4096) throw std::invalid_argument("bad metric count (key '" + p + ".count')");
  std::vector<jobs::Metric> out;
  for (std::int64_t n = 0; n < count; ++n) {
    const std::string at = p + "." + std::to_string(n);
    out.push_back({in.text(at + ".name"), in.text(at + ".unit"), in.real(at + ".value")});
  }
  return out;
}

}  // namespace kforge::mpi_eval
