#pragma once
// A model folder's tokenizer.json, for prompts sent as text and completions returned as text (docs/serving.md,
// "Text"): byte-level BPE, the kind GPT-2, SmolLM, Llama 3 and Qwen2 ship. Pre-tokenization follows the folder's
// own pre_tokenizer: ByteLevel with GPT-2's split, an optional Digits split, or the Split regexes of Llama 3 and
// Qwen2 (recognised by their text; any other pattern is refused at load, never approximated silently).
// Unicode letters and digits outside ASCII are classed by code point ranges (Latin, Greek, Cyrillic, CJK, ...):
// docs/serving.md says which.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::serve {

class Tokenizer {
 public:
  // Throws std::runtime_error naming the file and what it cannot read.
  static std::unique_ptr<Tokenizer> load(const std::filesystem::path& tokenizer_json);
  virtual ~Tokenizer() = default;
  virtual std::vector<std::int32_t> encode(std::string_view text) const = 0;
  // Special (added, special: true) tokens are left out; bytes that do not form UTF-8 are kept as they are. Each token
  // decodes to bytes of its own, so the decoding of tokens a then b is decode(a) followed by decode(b).
  virtual std::string decode(std::span<const std::int32_t> tokens) const = 0;
  virtual std::int64_t size() const = 0;  // the largest id + 1
};

}  // namespace kforge::serve
