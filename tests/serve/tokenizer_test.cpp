// A model folder's tokenizer.json (serve/include/kforge/serve/tokenizer.hpp): byte-level BPE merges in rank order,
// the pre-tokenizer splits of GPT-2, Llama 3 and Qwen2, Digits, added tokens, and text that round-trips.
#include "kforge/serve/tokenizer.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "../../serve/src/pretokenize.hpp"
#include "kforge/serve/text_stream.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace kforge::serve {
namespace {

using nlohmann::json;

// GPT-2's byte-to-character table, written independently of the tokenizer's own.
std::string byte_char(int b) {
  const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  int n = 0;
  for (int x = 0; x < b; ++x)
    if (!((x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF))) ++n;
  const int cp = printable ? b : 256 + n;
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

// 256 byte tokens, then the merges' results, then <|end|> (special) and <tool> (added, not special).
std::filesystem::path write_tokenizer(const std::filesystem::path& dir, const json& pre_tokenizer,
                                      const std::vector<std::pair<std::string, std::string>>& merges) {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_char(b)] = b;
  json merge_list = json::array();
  int next = 256;
  for (const auto& [a, b] : merges) {
    merge_list.push_back(a + " " + b);
    if (!vocab.contains(a + b)) vocab[a + b] = next++;
  }
  const json doc = {{"version", "1.0"},
                    {"added_tokens",
                     {{{"id", next}, {"content", "<|end|>"}, {"special", true}},
                      {{"id", next + 1}, {"content", "<tool>"}, {"special", false}}}},
                    {"normalizer", nullptr},
                    {"pre_tokenizer", pre_tokenizer},
                    {"decoder", {{"type", "ByteLevel"}}},
                    {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merge_list}}}};
  const auto path = dir / "tokenizer.json";
  std::ofstream(path) << doc.dump();
  return path;
}

const json kGpt2 = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
const std::string G = byte_char(' ');  // "Ġ"

TEST(Tokenizer, MergesApplyInRankOrderAndTextRoundTrips) {
  test_support::ScratchDir dir("tokenizer");
  const auto tok =
      Tokenizer::load(write_tokenizer(dir.path(), kGpt2, {{"h", "e"}, {G, "t"}, {G + "t", "he"}, {"l", "l"}}));
  const auto ids = tok->encode("hello the");
  // "hello" -> he l l o -> he ll o; " the" -> Ġt he -> Ġthe
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids[0], 256);  // he
  EXPECT_EQ(ids[1], 259);  // ll
  EXPECT_EQ(ids[2], static_cast<int>('o'));
  EXPECT_EQ(ids[3], 258);  // Ġthe
  for (const std::string text : {"hello the", "  two  spaces\n\tand tabs ", "naïve café — 東京 🚀", "x"})
    EXPECT_EQ(tok->decode(tok->encode(text)), text) << text;
}

TEST(Tokenizer, AddedTokensAreMatchedWholeAndSpecialOnesLeftOutOfText) {
  test_support::ScratchDir dir("tokenizer");
  const auto tok = Tokenizer::load(write_tokenizer(dir.path(), kGpt2, {{"h", "e"}}));
  const auto ids = tok->encode("he<|end|>he<tool>");
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids[1], 257);
  EXPECT_EQ(ids[3], 258);
  EXPECT_EQ(tok->decode(ids), "hehe<tool>");
  EXPECT_EQ(tok->size(), 259);
}

TEST(Tokenizer, SplitsFollowGpt2Llama3AndQwen2) {
  using V = std::vector<std::string>;
  EXPECT_EQ(pretokenize("Hello world's 123  !!", SplitPattern::gpt2, false),
            (V{"Hello", " world", "'s", " 123", " ", " !!"}));
  EXPECT_EQ(pretokenize("Hello world's 12345\n\n  x", SplitPattern::llama3, false),
            (V{"Hello", " world", "'s", " ", "123", "45", "\n\n", " ", " x"}));
  EXPECT_EQ(pretokenize("IT'S 12", SplitPattern::qwen2, false), (V{"IT", "'S", " ", "1", "2"}));
  EXPECT_EQ(pretokenize("a 12b", SplitPattern::gpt2, true), (V{"a", " ", "1", "2", "b"}));
  EXPECT_EQ(pretokenize("ab", SplitPattern::none, false), (V{"ab"}));
}

// Hugging Face's own tokenizers on the same tokenizer.json under each pre-tokenizer style (the ids in
// data/hf_tokenizer_cases.json, written by data/make_hf_tokenizer_cases.py): the same ids for every text, and the
// same decoded text.
TEST(Tokenizer, GivesHuggingFaceTokenizersIdsUnderEverySupportedPreTokenizer) {
  const std::filesystem::path data = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/serve/data";
  const json cases = json::parse(std::ifstream(data / "hf_tokenizer_cases.json"));
  json base = json::parse(std::ifstream(data / "tiny-text-tokenizer.json"));
  test_support::ScratchDir dir("tokenizer");
  int compared = 0;
  for (const auto& [style, pre] : cases.at("styles").items()) {
    base["pre_tokenizer"] = pre;
    std::ofstream(dir.path() / (style + ".json")) << base.dump();
    const auto tok = Tokenizer::load(dir.path() / (style + ".json"));
    for (const json& c : cases.at("cases")) {
      const std::string text = c.at("text").get<std::string>();
      const auto want = c.at("ids").at(style).get<std::vector<std::int32_t>>();
      EXPECT_EQ(tok->encode(text), want) << style << ": " << json(text).dump();
      if (style == "gpt2") {
        EXPECT_EQ(tok->decode(want), c.at("decoded").get<std::string>()) << json(text).dump();
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 4 * 59);
}

TEST(Tokenizer, UnsupportedTokenizersAreRefusedWithTheFileNamed) {
  test_support::ScratchDir dir("tokenizer");
  const json unknown_split = {{"type", "Split"}, {"pattern", {{"Regex", "\\w+"}}}, {"behavior", "Isolated"}};
  const auto path = write_tokenizer(dir.path(), unknown_split, {});
  try {
    Tokenizer::load(path);
    FAIL() << "an unknown split pattern was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\\w+"), std::string::npos) << e.what();
  }
  // a Split followed by ByteLevel's own split: two splits in a row, refused rather than one of them dropped
  const json split_then_split = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"},
         {"pattern", {{"Regex", "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"}}},
         {"behavior", "Isolated"}},
        kGpt2}}};
  EXPECT_THROW(Tokenizer::load(write_tokenizer(dir.path(), split_then_split, {})), std::runtime_error);
  std::ofstream(dir.path() / "broken.json") << "{\"model\": ";
  EXPECT_THROW(Tokenizer::load(dir.path() / "broken.json"), std::runtime_error);
  EXPECT_THROW(Tokenizer::load(dir.path() / "absent.json"), std::runtime_error);
}

TEST(TextStream, ACharacterSplitAcrossTokensWaitsForItsLastByte) {
  test_support::ScratchDir dir("tokenizer");
  const auto tok = Tokenizer::load(write_tokenizer(dir.path(), kGpt2, {}));
  TextStream text(tok.get());
  const std::string rocket = "🚀";  // four bytes, four byte tokens
  const std::vector<std::int32_t> bytes(rocket.begin(), rocket.end());
  std::string got;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::int32_t id = static_cast<unsigned char>(bytes[i]);
    const std::string piece = text.push(std::vector<std::int32_t>{id}, false);
    if (i + 1 < bytes.size()) {
      EXPECT_EQ(piece, "") << i;
    }
    got += piece;
  }
  EXPECT_EQ(got, rocket);
  EXPECT_EQ(text.push(std::vector<std::int32_t>{'a'}, true), "a");
  EXPECT_EQ(text.all(), rocket + "a");
  EXPECT_EQ(TextStream(nullptr).push(std::vector<std::int32_t>{1}, true), "");
}

}  // namespace
}  // namespace kforge::serve
