#include "pretokenize.hpp"

#include <algorithm>
#include <stdexcept>

namespace kforge::serve {
namespace {

// Code points of UTF-8 text; a byte that starts no valid sequence stands for itself (as U+DC80 + byte, so that it
// is never a letter, digit or space and is written back unchanged).
std::u32string code_points(std::string_view s, std::vector<std::size_t>& offsets) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    offsets.push_back(i);
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    char32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    out.push_back(ok ? cp : 0xDC80 + c);
    i += ok ? len : 1;
  }
  offsets.push_back(s.size());
  return out;
}

bool is_newline(char32_t c) { return c == '\r' || c == '\n'; }
bool is_other(char32_t c) { return !is_space(c) && !is_letter(c) && !is_number(c); }
char32_t lower(char32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// 's 't 're 've 'm 'll 'd at i: the match length, or 0.
std::size_t contraction(const std::u32string& t, std::size_t i, bool any_case) {
  if (t[i] != '\'' || i + 1 >= t.size()) return 0;
  const auto at = [&](std::size_t k) { return i + k < t.size() ? (any_case ? lower(t[i + k]) : t[i + k]) : 0; };
  if (at(1) == 's' || at(1) == 't' || at(1) == 'm' || at(1) == 'd') return 2;
  if ((at(1) == 'r' && at(2) == 'e') || (at(1) == 'v' && at(2) == 'e') || (at(1) == 'l' && at(2) == 'l')) return 3;
  return 0;
}

template <class Pred>
std::size_t run(const std::u32string& t, std::size_t i, Pred p, std::size_t most = SIZE_MAX) {
  std::size_t j = i;
  while (j < t.size() && j - i < most && p(t[j])) ++j;
  return j - i;
}

// \s+(?!\S) then \s+ at i (t[i] is a space): the whole run at the end of the text or before another space,
// else all of it but the last.
std::size_t spaces(const std::u32string& t, std::size_t i) {
  const std::size_t r = run(t, i, is_space);
  return i + r == t.size() || r == 1 ? r : r - 1;
}

std::size_t match_gpt2(const std::u32string& t, std::size_t i) {
  if (const std::size_t c = contraction(t, i, false)) return c;
  const std::size_t sp = t[i] == ' ' && i + 1 < t.size() ? 1 : 0;
  for (const auto cls : {is_letter, is_number, is_other})
    if (const std::size_t r = run(t, i + sp, cls)) return sp + r;
  if (const std::size_t r = run(t, i, is_other)) return r;
  return spaces(t, i);
}

std::size_t match_llama3(const std::u32string& t, std::size_t i, std::size_t digits) {
  if (const std::size_t c = contraction(t, i, true)) return c;
  const std::size_t lead = !is_newline(t[i]) && !is_letter(t[i]) && !is_number(t[i]) && i + 1 < t.size() ? 1 : 0;
  if (const std::size_t r = run(t, i + lead, is_letter)) return lead + r;
  if (const std::size_t r = run(t, i, is_letter)) return r;
  if (const std::size_t r = run(t, i, is_number, digits)) return r;
  const std::size_t sp = t[i] == ' ' && i + 1 < t.size() ? 1 : 0;
  if (const std::size_t r = run(t, i + sp, is_other)) return sp + r + run(t, i + sp + r, is_newline);
  // \s*[\r\n]+: through the last line break of the run of spaces
  const std::size_t r = run(t, i, is_space);
  for (std::size_t k = r; k-- > 0;)
    if (is_newline(t[i + k])) return k + 1;
  return spaces(t, i);
}

}  // namespace

bool is_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_number(char32_t c) {
  return (c >= '0' && c <= '9') || c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xBC && c <= 0xBE) ||
         (c >= 0x660 && c <= 0x669) || (c >= 0x6F0 && c <= 0x6F9) || (c >= 0x966 && c <= 0x96F) ||
         (c >= 0x2070 && c <= 0x2079 && c != 0x2071 && c != 0x2072 && c != 0x2073) || (c >= 0x2080 && c <= 0x2089) ||
         (c >= 0x2150 && c <= 0x2189) || (c >= 0x2460 && c <= 0x249B) || (c >= 0x2776 && c <= 0x2793) || c == 0x3007 ||
         (c >= 0x3021 && c <= 0x3029) || (c >= 0xFF10 && c <= 0xFF19);
}

bool is_letter(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (c < 0x100) return c == 0xAA || c == 0xB5 || c == 0xBA || (c >= 0xC0 && c != 0xD7 && c != 0xF7);
  return (c < 0x2C2) || (c >= 0x2C6 && c <= 0x2D1) || (c >= 0x2E0 && c <= 0x2E4) || (c >= 0x370 && c <= 0x373) ||
         (c >= 0x376 && c <= 0x37D && c != 0x378 && c != 0x379) || c == 0x386 ||
         (c >= 0x388 && c <= 0x3FF && c != 0x3F6) || (c >= 0x400 && c <= 0x481) || (c >= 0x48A && c <= 0x52F) ||
         (c >= 0x531 && c <= 0x587) || (c >= 0x5D0 && c <= 0x5F2) || (c >= 0x620 && c <= 0x64A) ||
         (c >= 0x671 && c <= 0x6D3) || (c >= 0x1E00 && c <= 0x1FFF) || (c >= 0x3041 && c <= 0x3096) ||
         (c >= 0x30A1 && c <= 0x30FA) || (c >= 0x3105 && c <= 0x312F) || (c >= 0x3131 && c <= 0x318E) ||
         (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7A3) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF21 && c <= 0xFF3A) || (c >= 0xFF41 && c <= 0xFF5A) ||
         (c >= 0xFF66 && c <= 0xFFDC) || (c >= 0x20000 && c <= 0x2FA1F);
}

SplitPattern split_pattern_of(const std::string& regex) {
  const std::string tail = "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  const std::string head = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|";
  if (regex == head + "\\p{N}{1,3}" + tail) return SplitPattern::llama3;
  if (regex == head + "\\p{N}" + tail) return SplitPattern::qwen2;
  if (regex == "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+")
    return SplitPattern::gpt2;
  throw std::runtime_error(
      "its Split pre-tokenizer's pattern is not one kforge serve knows (GPT-2's, Llama 3's or "
      "Qwen2's): " +
      regex);
}

std::vector<std::string> pretokenize(std::string_view text, SplitPattern pattern, bool individual_digits) {
  std::vector<std::size_t> at;
  const std::u32string all = code_points(text, at);
  std::vector<std::string> pieces;
  // One segment [begin, end) split by the pattern as if it were the whole text (lookaheads stop at its end).
  const auto split = [&](std::size_t begin, std::size_t end) {
    const std::u32string t = all.substr(begin, end - begin);
    for (std::size_t i = 0; i < t.size();) {
      std::size_t len = t.size() - i;
      if (pattern == SplitPattern::gpt2) len = match_gpt2(t, i);
      if (pattern == SplitPattern::llama3) len = match_llama3(t, i, 3);
      if (pattern == SplitPattern::qwen2) len = match_llama3(t, i, 1);
      len = std::max<std::size_t>(len, 1);
      pieces.emplace_back(text.substr(at[begin + i], at[begin + i + len] - at[begin + i]));
      i += len;
    }
  };
  if (!individual_digits) {
    split(0, all.size());
    return pieces;
  }
  // The Digits pre-tokenizer first: every digit a segment of its own, the pattern then splits what lies between.
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= all.size(); ++i) {
    if (i < all.size() && !is_number(all[i])) continue;
    split(begin, i);
    if (i < all.size()) split(i, i + 1);
    begin = i + 1;
  }
  return pieces;
}

}  // namespace kforge::serve
