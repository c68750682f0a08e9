#pragma once
// The JSON bodies kforge serve answers with, in the shapes of the OpenAI API (and vLLM's extensions that clients
// read: token_ids, stop_reason, max_model_len). Text is written as valid UTF-8 (invalid bytes become U+FFFD).
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace kforge::serve {

struct CompletionIds {
  std::string id;            // "cmpl-..."
  std::int64_t created = 0;  // Unix seconds
  std::string model;
};

struct Usage {
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
};

// A whole (non-streamed) completion.
std::string completion_json(const CompletionIds& ids, const std::string& text, std::span<const std::int32_t> tokens,
                            const std::string& finish_reason, const Usage& usage);
// One server-sent event of a streamed completion ("data: {...}\n\n"): new text and tokens, and the finish reason
// with the last one.
std::string completion_chunk_event(const CompletionIds& ids, const std::string& text,
                                   std::span<const std::int32_t> tokens, const std::optional<std::string>& finish);
// The usage chunk (stream_options.include_usage) and the stream's end.
std::string usage_chunk_event(const CompletionIds& ids, const Usage& usage);
inline constexpr const char* kStreamDone = "data: [DONE]\n\n";
// GET /v1/models.
std::string models_json(const std::string& model, std::int64_t created, std::int64_t max_model_len);

}  // namespace kforge::serve
