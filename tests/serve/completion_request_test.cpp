// The body of POST /v1/completions (serve/include/kforge/serve/completion_request.hpp): what is accepted, and that
// every refusal names its field and never crashes, however hostile the body.
#include "kforge/serve/completion_request.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kforge::serve {
namespace {

RequestLimits limits() { return {"tiny", 256, 512, 500, 400, nullptr}; }

ApiError error_of(const std::string& body) {
  const auto r = parse_completion_request(body, limits());
  EXPECT_TRUE(std::holds_alternative<ApiError>(r)) << body;
  return std::holds_alternative<ApiError>(r) ? std::get<ApiError>(r) : ApiError{};
}

TEST(CompletionRequest, TokenIdsWithTheOpenAIDefaults) {
  const auto r = parse_completion_request(R"({"model":"tiny","prompt":[1,2,3]})", limits());
  ASSERT_TRUE(std::holds_alternative<CompletionRequest>(r));
  const auto& c = std::get<CompletionRequest>(r);
  EXPECT_EQ(c.prompt, (std::vector<std::int32_t>{1, 2, 3}));
  EXPECT_EQ(c.max_tokens, 16);
  EXPECT_EQ(c.sampling.temperature, 1.0);
  EXPECT_FALSE(c.seed.has_value());
  EXPECT_FALSE(c.stream);
}

TEST(CompletionRequest, EveryHonouredFieldIsRead) {
  const auto r = parse_completion_request(
      R"({"prompt":[[7]],"max_tokens":5,"temperature":0.5,"top_p":0.9,"top_k":-1,"seed":-3,"stop_token_ids":[9],
          "ignore_eos":true,"stream":true,"stream_options":{"include_usage":true},"logprobs":null,"n":1,
          "repetition_penalty":1.0,"user":"someone","an_extension":{"x":1}})",
      limits());
  ASSERT_TRUE(std::holds_alternative<CompletionRequest>(r));
  const auto& c = std::get<CompletionRequest>(r);
  EXPECT_EQ(c.prompt, std::vector<std::int32_t>{7});
  EXPECT_EQ(c.max_tokens, 5);
  EXPECT_EQ(c.sampling.temperature, 0.5);
  EXPECT_EQ(c.sampling.top_p, 0.9);
  EXPECT_EQ(c.sampling.top_k, 0);
  EXPECT_EQ(c.seed, static_cast<std::uint64_t>(-3));
  EXPECT_EQ(c.stop_token_ids, std::vector<std::int32_t>{9});
  EXPECT_TRUE(c.ignore_eos && c.stream && c.include_usage);
}

TEST(CompletionRequest, WrongValuesAreRefusedWithTheirField) {
  EXPECT_EQ(error_of(R"({"prompt":[1],"max_tokens":"5"})").param, "max_tokens");
  EXPECT_EQ(error_of(R"({"prompt":[1],"max_tokens":0})").param, "max_tokens");
  EXPECT_EQ(error_of(R"({"prompt":[1],"max_tokens":401})").param, "max_tokens");
  EXPECT_EQ(error_of(R"({"prompt":[1],"temperature":"hot"})").param, "temperature");
  EXPECT_EQ(error_of(R"({"prompt":[1],"temperature":3})").param, "temperature");
  EXPECT_EQ(error_of(R"({"prompt":[1],"top_p":0})").param, "top_p");
  EXPECT_EQ(error_of(R"({"prompt":[1],"stream":1})").param, "stream");
  EXPECT_EQ(error_of(R"({"prompt":[1],"stop_token_ids":[300]})").param, "stop_token_ids");
  EXPECT_EQ(error_of(R"({"prompt":[256]})").param, "prompt");
  EXPECT_EQ(error_of(R"({"prompt":[-1]})").param, "prompt");
  EXPECT_EQ(error_of(R"({"prompt":[1.5]})").param, "prompt");
  EXPECT_EQ(error_of(R"({"prompt":[]})").param, "prompt");
  EXPECT_EQ(error_of(R"({"prompt":[[1],[2]]})").param, "prompt");
  EXPECT_EQ(error_of(R"({"max_tokens":3})").param, "prompt");
  EXPECT_EQ(error_of(R"({"prompt":"text"})").param, "prompt");  // no tokenizer
  EXPECT_EQ(error_of(R"({"prompt":[1],"n":2})").param, "n");
  EXPECT_EQ(error_of(R"({"prompt":[1],"stop":["\n"]})").param, "stop");
  EXPECT_EQ(error_of(R"({"prompt":[1],"logprobs":3})").param, "logprobs");
  EXPECT_EQ(error_of(R"({"prompt":[1],"presence_penalty":0.5})").param, "presence_penalty");
}

TEST(CompletionRequest, APromptAndOutputBeyondTheContextAreRefused) {
  std::string prompt = "[";
  for (int i = 0; i < 500; ++i) prompt += (i ? ",1" : "1");
  const ApiError e = error_of(R"({"prompt":)" + prompt + R"(],"max_tokens":13})");
  EXPECT_EQ(e.param, "max_tokens");
  EXPECT_NE(e.message.find("context of 512"), std::string::npos) << e.message;
  EXPECT_EQ(error_of(R"({"prompt":)" + prompt + R"(,1],"max_tokens":1})").param, "prompt");  // 501 > 500
}

TEST(CompletionRequest, TheDefaultMaxTokensKeepsToTheServersLimitAndDefaultValuedFieldsPass) {
  RequestLimits small = limits();
  small.max_tokens = 4;
  const auto r = parse_completion_request(R"({"prompt":[1],"logprobs":false,"stop":"","suffix":""})", small);
  ASSERT_TRUE(std::holds_alternative<CompletionRequest>(r));
  EXPECT_EQ(std::get<CompletionRequest>(r).max_tokens, 4);
}

TEST(CompletionRequest, AnotherModelIsNotFound) {
  const ApiError e = error_of(R"({"model":"gpt-4","prompt":[1]})");
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(e.param, "model");
}

TEST(CompletionRequest, MalformedAndHostileBodiesAreRefusedNotCrashedOn) {
  EXPECT_EQ(error_of("").status, 400);
  EXPECT_EQ(error_of("{\"prompt\":[1,2").status, 400);
  EXPECT_EQ(error_of("[1,2,3]").status, 400);
  EXPECT_EQ(error_of("\xff\xfe{}").status, 400);
  // a million nested arrays would overflow a recursive parser's stack: refused by depth before parsing
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_NE(error_of(deep).message.find("nests deeper"), std::string::npos);
  // brackets inside strings do not count
  const auto ok = parse_completion_request(R"({"prompt":[1],"user":")" + std::string(100, '[') + R"("})", limits());
  EXPECT_TRUE(std::holds_alternative<CompletionRequest>(ok));
}

TEST(CompletionRequest, ErrorBodiesAreOpenAIShapedAndValidUtf8) {
  const std::string body = error_json({400, "bad \xff byte", "prompt"});
  EXPECT_NE(body.find(R"("param":"prompt")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("code":400)"), std::string::npos) << body;
  EXPECT_EQ(body.find('\xff'), std::string::npos) << body;
}

}  // namespace
}  // namespace kforge::serve
