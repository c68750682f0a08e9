// Canonical genome text. The candidate id hashes it, so formatting must never depend on locale or platform:
// std::to_chars / std::from_chars are locale-independent and %.17g-equivalent round trips every double.
#include "kforge/jobs/genome.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

namespace kforge::jobs {
namespace {

std::string double_text(double d) {
  if (std::isnan(d)) return "nan";  // one spelling for every NaN payload and sign
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, 17);
  std::string text(buf, end);
  // "1" would read back as an integer: keep the type visible in the text.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string unquoted(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"')
    throw std::invalid_argument("parameter value " + std::string(text) + ": string is not enclosed in double quotes");
  std::string out;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    char c = text[i];
    if (c == '"') throw std::invalid_argument("parameter value " + std::string(text) + ": unescaped '\"' inside");
    if (c == '\\') {
      if (i + 2 >= text.size() || (text[i + 1] != '"' && text[i + 1] != '\\'))
        throw std::invalid_argument("parameter value " + std::string(text) + ": bad escape (only \\\" and \\\\)");
      c = text[++i];
    }
    out += c;
  }
  return out;
}

bool looks_like_double(std::string_view t) {
  return t.find_first_of(".eE") != std::string_view::npos || t.find("inf") != std::string_view::npos ||
         t.find("nan") != std::string_view::npos;
}

template <class T>
T parse_number(std::string_view text) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument("parameter value '" + std::string(text) + "' is not a valid number");
  return value;
}

// End of the value that starts at pos: the closing quote of a string, else the next ';'.
std::size_t value_end(std::string_view text, std::size_t pos) {
  if (pos >= text.size() || text[pos] != '"') return std::min(text.find(';', pos), text.size());
  for (std::size_t i = pos + 1; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  throw std::invalid_argument("genome text '" + std::string(text) + "': unterminated string value");
}

void check_name(const std::string& name) {
  if (name.empty() || name.find_first_of("=;\"") != std::string::npos)
    throw std::invalid_argument("genome parameter name '" + name + "' is empty or contains '=', ';' or '\"'");
}

}  // namespace

std::string to_text(const ParamValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return double_text(*d);
  return quoted(std::get<std::string>(v));
}

ParamValue parse_param_value(std::string_view text) {
  if (text.empty()) throw std::invalid_argument("empty parameter value");
  if (text.front() == '"') return unquoted(text);
  if (text == "nan") return std::nan("");
  if (looks_like_double(text)) return parse_number<double>(text);
  return parse_number<std::int64_t>(text);
}

std::string Genome::to_text() const {
  std::string out;
  for (const auto& [name, value] : params) {
    check_name(name);
    if (!out.empty()) out += ';';
    out += name + '=' + kforge::jobs::to_text(value);
  }
  return out;
}

Genome Genome::from_text(std::string_view text) {
  Genome g;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eq = text.find('=', pos);
    if (eq == std::string_view::npos)
      throw std::invalid_argument("genome text '" + std::string(text) + "': '" + std::string(text.substr(pos)) +
                                  "' has no '='");
    std::string name(text.substr(pos, eq - pos));
    check_name(name);
    std::size_t end = value_end(text, eq + 1);
    if (end < text.size() && text[end] != ';')
      throw std::invalid_argument("genome text '" + std::string(text) + "': expected ';' after parameter " + name);
    if (!g.params.emplace(name, parse_param_value(text.substr(eq + 1, end - eq - 1))).second)
      throw std::invalid_argument("genome text '" + std::string(text) + "': parameter " + name + " appears twice");
    pos = end + 1;
    if (end + 1 == text.size()) throw std::invalid_argument("genome text '" + std::string(text) + "': trailing ';'");
  }
  return g;
}

std::int64_t Genome::get_int(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) throw std::invalid_argument("genome has no parameter " + name);
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return *i;
  throw std::invalid_argument("genome parameter " + name + " is not an integer: " + kforge::jobs::to_text(it->second));
}

double Genome::get_double(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) throw std::invalid_argument("genome has no parameter " + name);
  if (const auto* d = std::get_if<double>(&it->second)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  throw std::invalid_argument("genome parameter " + name + " is not a number: " + kforge::jobs::to_text(it->second));
}

std::string Genome::get_string(const std::string& name) const {
  auto it = params.find(name);
  if (it == params.end()) throw std::invalid_argument("genome has no parameter " + name);
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  throw std::invalid_argument("genome parameter " + name + " is not a string: " + kforge::jobs::to_text(it->second));
}

}  // namespace kforge::jobs
