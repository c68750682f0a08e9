#include "kforge/serve/openai_responses.hpp"

#include <nlohmann/json.hpp>

namespace kforge::serve {
namespace {

using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json usage_of(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens}};
}

json head(const CompletionIds& ids) {
  return {{"id", ids.id}, {"object", "text_completion"}, {"created", ids.created}, {"model", ids.model}};
}

json choice(const std::string& text, std::span<const std::int32_t> tokens, const std::optional<std::string>& finish) {
  return {{"index", 0},
          {"text", text},
          {"token_ids", json(std::vector<std::int32_t>(tokens.begin(), tokens.end()))},
          {"logprobs", nullptr},
          {"finish_reason", finish ? json(*finish) : json()},
          {"stop_reason", nullptr}};
}

}  // namespace

std::string completion_json(const CompletionIds& ids, const std::string& text, std::span<const std::int32_t> tokens,
                            const std::string& finish_reason, const Usage& usage) {
  json body = head(ids);
  body["choices"] = json::array({choice(text, tokens, finish_reason)});
  body["usage"] = usage_of(usage);
  return dump(body);
}

std::string completion_chunk_event(const CompletionIds& ids, const std::string& text,
                                   std::span<const std::int32_t> tokens, const std::optional<std::string>& finish) {
  json body = head(ids);
  body["choices"] = json::array({choice(text, tokens, finish)});
  return "data: " + dump(body) + "\n\n";
}

std::string usage_chunk_event(const CompletionIds& ids, const Usage& usage) {
  json body = head(ids);
  body["choices"] = json::array();
  body["usage"] = usage_of(usage);
  return "data: " + dump(body) + "\n\n";
}

std::string models_json(const std::string& model, std::int64_t created, std::int64_t max_model_len) {
  return dump({{"object", "list"},
               {"data", json::array({{{"id", model},
                                      {"object", "model"},
                                      {"created", created},
                                      {"owned_by", "kforge"},
                                      {"root", model},
                                      {"max_model_len", max_model_len}}})}});
}

}  // namespace kforge::serve
