#pragma once
// The pre-tokenizer splits of byte-level BPE tokenizers (tokenizer.cpp), written out as scanners over code points
// instead of a regex engine: std::regex has no \p{L}, and these three patterns are all that the supported
// tokenizers use.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::serve {

enum class SplitPattern {
  none,    // the text is one piece
  gpt2,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  llama3,  // (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
           // ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  qwen2,   // the same with \p{N} one digit at a time
};

// The pattern a tokenizer.json Split pre-tokenizer's Regex text names; throws std::runtime_error for any other.
SplitPattern split_pattern_of(const std::string& regex);

// `text` (UTF-8) cut into pieces by `pattern`; with individual_digits every \p{N} is a piece of its own first
// (the Digits pre-tokenizer).
std::vector<std::string> pretokenize(std::string_view text, SplitPattern pattern, bool individual_digits);

// Unicode classes by code point ranges (docs/serving.md says which scripts are covered).
bool is_letter(char32_t c);
bool is_number(char32_t c);
bool is_space(char32_t c);

}  // namespace kforge::serve
