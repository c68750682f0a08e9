#pragma once
// A completion's text as its tokens arrive: each piece is what the tokens so far add, holding back a UTF-8
// character whose bytes are split across tokens until its last byte has come (so every streamed piece is whole
// UTF-8). Without a tokenizer there is no text (the tokens go out as token_ids).
#include <cstdint>
#include <span>
#include <string>

namespace kforge::serve {

class Tokenizer;

class TextStream {
 public:
  explicit TextStream(const Tokenizer* tokenizer) : tokenizer_(tokenizer) {}
  // The text `fresh` adds; with `last`, everything not yet returned.
  std::string push(std::span<const std::int32_t> fresh, bool last);
  const std::string& all() const { return text_; }

 private:
  const Tokenizer* tokenizer_;
  std::string text_;
  std::size_t returned_ = 0;
};

// Bytes at the end of `s` that begin a UTF-8 character whose remaining bytes are missing (0 to 3).
std::size_t incomplete_utf8_tail(const std::string& s);

}  // namespace kforge::serve
