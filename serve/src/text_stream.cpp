#include "kforge/serve/text_stream.hpp"

#include "kforge/serve/tokenizer.hpp"

namespace kforge::serve {

std::size_t incomplete_utf8_tail(const std::string& s) {
  for (std::size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    const auto c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back for its lead
    const std::size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

std::string TextStream::push(std::span<const std::int32_t> fresh, bool last) {
  if (tokenizer_ == nullptr) return "";
  text_ += tokenizer_->decode(fresh);  // each token's bytes on their own: the new tokens' text is all that is new
  const std::size_t ready = last ? text_.size() : text_.size() - incomplete_utf8_tail(text_);
  if (ready <= returned_) return "";
  std::string piece = text_.substr(returned_, ready - returned_);
  returned_ = ready;
  return piece;
}

}  // namespace kforge::serve
