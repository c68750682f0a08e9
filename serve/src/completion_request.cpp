#include "kforge/serve/completion_request.hpp"

#include <nlohmann/json.hpp>

#include "kforge/serve/tokenizer.hpp"

namespace kforge::serve {
namespace {

using nlohmann::json;

// The deepest nesting of arrays and objects in `body`, brackets inside strings not counted.
int json_depth(std::string_view body) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : body) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxJsonDepth) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

ApiError bad(const std::string& param, const std::string& why) { return ApiError{400, param + ": " + why, param}; }

// A present, non-null field of `body`, or nullptr.
const json* field(const json& body, const char* name) {
  const auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

std::optional<ApiError> read_int(const json& body, const char* name, std::int64_t lo, std::int64_t hi,
                                 std::int64_t& into) {
  const json* v = field(body, name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer()) return bad(name, "must be an integer");
  const auto x = v->is_number_unsigned()
                     ? static_cast<std::int64_t>(std::min<std::uint64_t>(v->get<std::uint64_t>(), INT64_MAX))
                     : v->get<std::int64_t>();
  if (x < lo || x > hi)
    return bad(name, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], not " + std::to_string(x));
  into = x;
  return std::nullopt;
}

std::optional<ApiError> read_number(const json& body, const char* name, double& into) {
  const json* v = field(body, name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) return bad(name, "must be a number");
  into = v->get<double>();
  return std::nullopt;
}

std::optional<ApiError> read_bool(const json& body, const char* name, bool& into) {
  const json* v = field(body, name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) return bad(name, "must be true or false");
  into = v->get<bool>();
  return std::nullopt;
}

std::optional<ApiError> read_token_ids(const json& ids, const char* name, std::int64_t vocab,
                                       std::vector<std::int32_t>& into) {
  for (const json& t : ids) {
    if (!t.is_number_integer()) return bad(name, "token ids must be integers");
    const auto id = t.get<std::int64_t>();
    if (id < 0 || id >= vocab)
      return bad(name,
                 "token id " + std::to_string(id) + " is outside the vocabulary [0, " + std::to_string(vocab) + ")");
    into.push_back(static_cast<std::int32_t>(id));
  }
  return std::nullopt;
}

std::optional<ApiError> read_prompt(const json& body, const RequestLimits& limits, std::vector<std::int32_t>& into) {
  const json* p = field(body, "prompt");
  if (p == nullptr) return bad("prompt", "is required");
  if (p->is_array() && p->size() == 1 && ((*p)[0].is_string() || (*p)[0].is_array())) p = &(*p)[0];  // a batch of one
  if (p->is_string()) {
    if (limits.tokenizer == nullptr)
      return bad("prompt", "this model folder has no tokenizer.json: send the prompt as token ids");
    into = limits.tokenizer->encode(p->get<std::string>());
  } else if (p->is_array() && !p->empty() && (*p)[0].is_number_integer()) {
    if (auto e = read_token_ids(*p, "prompt", limits.vocab, into)) return e;
  } else if (p->is_array() && p->size() > 1) {
    return bad("prompt", "one prompt per request (a batch of prompts is not supported)");
  } else {
    return bad("prompt", "must be a string or an array of token ids");
  }
  if (into.empty()) return bad("prompt", "is empty");
  if (static_cast<std::int64_t>(into.size()) > limits.max_prompt_tokens)
    return bad("prompt", "has " + std::to_string(into.size()) + " tokens; this server takes at most " +
                             std::to_string(limits.max_prompt_tokens));
  return std::nullopt;
}

// Fields whose only value kforge serve honours is their default: anything else is refused rather than ignored.
std::optional<ApiError> refuse_unsupported(const json& body) {
  if (const json* n = field(body, "n"); n != nullptr && *n != 1) return bad("n", "only 1 is supported");
  if (const json* n = field(body, "best_of"); n != nullptr && *n != 1) return bad("best_of", "only 1 is supported");
  if (const json* e = field(body, "echo"); e != nullptr && *e != false) return bad("echo", "is not supported");
  if (const json* l = field(body, "logprobs"); l != nullptr && *l != 0 && *l != false)
    return bad("logprobs", "is not supported");
  if (const json* s = field(body, "suffix"); s != nullptr && *s != "") return bad("suffix", "is not supported");
  if (const json* b = field(body, "logit_bias"); b != nullptr && !b->empty())
    return bad("logit_bias", "is not supported");
  if (const json* s = field(body, "stop"); s != nullptr && !s->empty() && *s != "")
    return bad("stop", "stop strings are not supported; use stop_token_ids");
  for (const char* penalty : {"presence_penalty", "frequency_penalty"})
    if (const json* v = field(body, penalty); v != nullptr && *v != 0) return bad(penalty, "only 0 is supported");
  if (const json* v = field(body, "repetition_penalty"); v != nullptr && *v != 1)
    return bad("repetition_penalty", "only 1 is supported");
  return std::nullopt;
}

std::optional<ApiError> read_request(const json& body, const RequestLimits& limits, CompletionRequest& r) {
  if (const json* m = field(body, "model");
      m != nullptr && (!m->is_string() || m->get<std::string>() != limits.served_name))
    return ApiError{404,
                    "The model `" + (m->is_string() ? m->get<std::string>() : m->dump()) +
                        "` does not exist; this server serves `" + limits.served_name + "`",
                    "model", "NotFoundError"};
  if (auto e = refuse_unsupported(body)) return e;
  if (auto e = read_prompt(body, limits, r.prompt)) return e;
  r.max_tokens = std::min<std::int64_t>(r.max_tokens, limits.max_tokens);  // the default within the server's limit
  if (auto e = read_int(body, "max_tokens", 1, limits.max_tokens, r.max_tokens)) return e;
  const auto positions = static_cast<std::int64_t>(r.prompt.size()) + r.max_tokens;
  if (positions > limits.max_context)
    return bad("max_tokens", "the prompt's " + std::to_string(r.prompt.size()) + " tokens and max_tokens " +
                                 std::to_string(r.max_tokens) + " exceed this server's context of " +
                                 std::to_string(limits.max_context) + " tokens");
  if (auto e = read_number(body, "temperature", r.sampling.temperature)) return e;
  if (auto e = read_number(body, "top_p", r.sampling.top_p)) return e;
  if (auto e = read_int(body, "top_k", -1, INT32_MAX, r.sampling.top_k)) return e;
  if (r.sampling.top_k == -1) r.sampling.top_k = 0;
  if (const SamplingError e = sampling_error(r.sampling); e.field[0] != 0) return bad(e.field, e.why);
  std::int64_t seed = 0;
  if (field(body, "seed") != nullptr) {
    if (auto e = read_int(body, "seed", INT64_MIN, INT64_MAX, seed)) return e;
    r.seed = static_cast<std::uint64_t>(seed);
  }
  if (const json* ids = field(body, "stop_token_ids")) {
    if (!ids->is_array()) return bad("stop_token_ids", "must be an array of token ids");
    if (auto e = read_token_ids(*ids, "stop_token_ids", limits.vocab, r.stop_token_ids)) return e;
  }
  if (auto e = read_bool(body, "ignore_eos", r.ignore_eos)) return e;
  if (auto e = read_bool(body, "stream", r.stream)) return e;
  if (const json* so = field(body, "stream_options")) {
    if (!so->is_object()) return bad("stream_options", "must be an object");
    if (auto e = read_bool(*so, "include_usage", r.include_usage)) return e;
  }
  return std::nullopt;
}

}  // namespace

std::variant<CompletionRequest, ApiError> parse_completion_request(std::string_view body, const RequestLimits& limits) {
  if (json_depth(body) > kMaxJsonDepth)
    return ApiError{400, "the body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels", ""};
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return ApiError{400, "the body is not valid JSON", ""};
  if (!parsed.is_object()) return ApiError{400, "the body must be a JSON object", ""};
  CompletionRequest r;
  try {
    if (auto e = read_request(parsed, limits, r)) return *e;
  } catch (const std::exception& e) {  // a tokenizer's refusal of the text, or a JSON value of the wrong type
    return ApiError{400, e.what(), ""};
  }
  return r;
}

std::string error_json(const ApiError& e) {
  json body = {{"error",
                {{"message", e.message},
                 {"type", e.type},
                 {"param", e.param.empty() ? json() : json(e.param)},
                 {"code", e.status}}}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace kforge::serve
