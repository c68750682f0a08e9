#include "kforge/scheduler/daemon/visible_text.hpp"

#include <cstdio>

namespace kforge::scheduler::daemon {

namespace {

void escape_byte(std::string& out, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  out += buf;
}

// Length of the valid UTF-8 sequence starting at text[i] (2 to 4), or 0 when it is not one. Overlong forms and
// surrogates are not valid.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t n = 0;
  unsigned min = 0;
  unsigned code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    n = 2, min = 0x80, code = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3, min = 0x800, code = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4, min = 0x10000, code = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3fu);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  if (code >= 0x80 && code <= 0x9f) return 0;  // C1 controls: escaped like the bytes they are
  return n;
}

}  // namespace

std::string visible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') {
      out += "\\n";
    } else if (b == '\r') {
      out += "\\r";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\\') {
      out += "\\\\";
    } else if (b < 0x20 || b == 0x7f) {
      escape_byte(out, b);
    } else if (b < 0x80) {
      out += static_cast<char>(b);
    } else if (const std::size_t n = utf8_sequence(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    } else {
      escape_byte(out, b);
    }
    ++i;
  }
  return out;
}

}  // namespace kforge::scheduler::daemon
