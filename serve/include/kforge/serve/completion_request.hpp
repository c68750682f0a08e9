#pragma once
// The body of POST /v1/completions, read and checked (docs/serving.md, "API"): every field kforge serve honours,
// with the OpenAI API's types and defaults; a value it cannot honour is refused with the field named, never
// silently ignored. Fields it does not know are ignored, as OpenAI-compatible servers do (clients add their own).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kforge/serve/sampling.hpp"

namespace kforge::serve {

class Tokenizer;

// An error response: HTTP status, message, the offending field ("" when none) and the OpenAI error type.
struct ApiError {
  int status = 400;
  std::string message;
  std::string param;
  std::string type = "invalid_request_error";
};

struct CompletionRequest {
  std::vector<std::int32_t> prompt;
  std::int64_t max_tokens = 16;
  SamplingParams sampling;
  std::optional<std::uint64_t> seed;
  std::vector<std::int32_t> stop_token_ids;
  bool ignore_eos = false;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage: a last chunk with the usage
};

// What a request is checked against.
struct RequestLimits {
  std::string served_name;       // `model` must be this (or absent)
  std::int64_t vocab = 0;        // token ids in a prompt are below this
  std::int64_t max_context = 0;  // prompt + max_tokens fit in it
  std::int64_t max_prompt_tokens = 0;
  std::int64_t max_tokens = 0;           // the most tokens one request may ask for
  const Tokenizer* tokenizer = nullptr;  // for a prompt given as text; none: text prompts are refused
};

// Nesting deeper than this is refused before parsing (a parser that recurses must not meet a million brackets).
inline constexpr int kMaxJsonDepth = 32;

std::variant<CompletionRequest, ApiError> parse_completion_request(std::string_view body, const RequestLimits& limits);

// The OpenAI error body of `e`.
std::string error_json(const ApiError& e);

}  // namespace kforge::serve
