// kforge serve's request body (completion_request.hpp) and tokenizer (tokenizer.hpp), on any bytes from a client:
// parse_completion_request never throws, returns either a request within the server's limits or an error whose
// body is valid JSON; and the byte-level tokenizer gives back every text it encodes (special tokens aside).
#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "kforge/serve/completion_request.hpp"
#include "kforge/serve/tokenizer.hpp"

namespace {

const kforge::serve::Tokenizer& tokenizer() {
  static const auto tok = kforge::serve::Tokenizer::load(std::filesystem::path(KFORGE_SOURCE_DIR) /
                                                         "tests/serve/data/tiny-text-tokenizer.json");
  return *tok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kforge::serve;
  const std::string text = kforge::fuzz::text_of(data, size);
  const RequestLimits limits{"tiny-text", 1024, 256, 200, 128, &tokenizer()};
  std::variant<CompletionRequest, ApiError> parsed;
  try {
    parsed = parse_completion_request(text, limits);
  } catch (const std::exception& e) {
    kforge::fuzz::contract_broken(std::string("parse_completion_request threw: ") + e.what());
  }
  if (const auto* e = std::get_if<ApiError>(&parsed)) {
    if (e->status < 400 || e->status > 499) kforge::fuzz::contract_broken("a refusal that is not a 4xx");
    if (nlohmann::json::parse(error_json(*e), nullptr, false).is_discarded())
      kforge::fuzz::contract_broken("an error body that is not JSON: " + error_json(*e));
  } else {
    const auto& r = std::get<CompletionRequest>(parsed);
    const auto n = static_cast<std::int64_t>(r.prompt.size());
    if (n < 1 || n > limits.max_prompt_tokens || r.max_tokens < 1 || r.max_tokens > limits.max_tokens ||
        n + r.max_tokens > limits.max_context)
      kforge::fuzz::contract_broken("an accepted request outside the limits");
    for (const std::int32_t id : r.prompt)
      if (id < 0 || id >= limits.vocab) kforge::fuzz::contract_broken("an accepted token id outside the vocabulary");
    if (sampling_error(r.sampling).field[0] != 0)
      kforge::fuzz::contract_broken("accepted sampling values out of range");
  }
  if (text.find("<|") == std::string::npos) {
    const auto ids = tokenizer().encode(text);
    if (tokenizer().decode(ids) != text) kforge::fuzz::contract_broken("decode(encode(text)) != text");
  }
  return 0;
}
