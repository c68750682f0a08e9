#include "kforge/serve/tokenizer.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>

#include "pretokenize.hpp"

namespace kforge::serve {
namespace {

using nlohmann::json;

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// GPT-2's bytes_to_unicode: every byte as a printable code point (the alphabet of byte-level BPE vocabularies).
std::array<std::string, 256> byte_alphabet() {
  std::array<std::string, 256> out;
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    append_utf8(out[static_cast<std::size_t>(b)], printable ? static_cast<char32_t>(b) : next++);
  }
  return out;
}

class ByteLevelBpe final : public Tokenizer {
 public:
  ByteLevelBpe(const json& doc, const std::string& where) {
    const json& model = doc.at("model");
    if (model.value("type", "BPE") != "BPE") throw std::runtime_error(where + ": model.type is not BPE");
    for (const auto& [piece, id] : model.at("vocab").items()) add(piece, id.get<std::int32_t>());
    std::int32_t rank = 0;
    for (const json& m : model.at("merges")) {
      const std::string pair =
          m.is_string() ? m.get<std::string>() : m.at(0).get<std::string>() + " " + m.at(1).get<std::string>();
      ranks_.emplace(pair, rank++);
    }
    ignore_merges_ = model.value("ignore_merges", false);
    if (doc.contains("added_tokens"))
      for (const json& t : doc.at("added_tokens")) {
        const auto id = t.at("id").get<std::int32_t>();
        add(t.at("content").get<std::string>(), id);
        added_.emplace_back(t.at("content").get<std::string>(), id);
        if (t.value("special", false)) special_.push_back(id);
      }
    std::sort(added_.begin(), added_.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    read_pre_tokenizer(doc.contains("pre_tokenizer") ? doc.at("pre_tokenizer") : json(), where);
    if (doc.contains("normalizer") && !doc.at("normalizer").is_null() &&
        doc.at("normalizer").value("type", "") != "NFC")
      throw std::runtime_error(where + ": its normalizer (" + doc.at("normalizer").dump() + ") is not supported");
    const auto alphabet = byte_alphabet();
    for (int b = 0; b < 256; ++b) {
      byte_piece_[static_cast<std::size_t>(b)] = alphabet[static_cast<std::size_t>(b)];
      piece_byte_.emplace(alphabet[static_cast<std::size_t>(b)], static_cast<char>(b));
      if (!ids_.contains(alphabet[static_cast<std::size_t>(b)]))
        throw std::runtime_error(where + ": the vocabulary lacks the byte-level token of byte " + std::to_string(b) +
                                 " (is this a byte-level BPE tokenizer?)");
    }
  }

  std::vector<std::int32_t> encode(std::string_view text) const override {
    std::vector<std::int32_t> out;
    while (!text.empty()) {  // added tokens are matched literally, the text between them is split and merged
      std::size_t next = text.size();
      const std::pair<std::string, std::int32_t>* hit = nullptr;
      for (const auto& a : added_) {
        const std::size_t at = text.find(a.first);
        if (at < next || (at == next && hit != nullptr && a.first.size() > hit->first.size())) next = at, hit = &a;
      }
      encode_plain(text.substr(0, next), out);
      if (hit == nullptr) break;
      out.push_back(hit->second);
      text.remove_prefix(next + hit->first.size());
    }
    return out;
  }

  std::string decode(std::span<const std::int32_t> tokens) const override {
    std::string out;
    for (const std::int32_t id : tokens) {
      if (id < 0 || static_cast<std::size_t>(id) >= pieces_.size()) continue;
      if (std::find(special_.begin(), special_.end(), id) != special_.end()) continue;
      const std::string& piece = pieces_[static_cast<std::size_t>(id)];
      if (std::any_of(added_.begin(), added_.end(), [&](const auto& a) { return a.second == id; })) {
        out += piece;
        continue;
      }
      for (std::size_t i = 0; i < piece.size();) {  // each code point of the piece back to its byte
        const auto c = static_cast<unsigned char>(piece[i]);
        const std::size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        const std::string cp = piece.substr(i, len);
        const auto it = piece_byte_.find(cp);
        out += it != piece_byte_.end() ? std::string(1, it->second) : cp;
        i += len;
      }
    }
    return out;
  }

  std::int64_t size() const override { return static_cast<std::int64_t>(pieces_.size()); }

 private:
  void add(const std::string& piece, std::int32_t id) {
    if (id < 0) throw std::runtime_error("negative token id for " + piece);
    ids_[piece] = id;
    if (pieces_.size() <= static_cast<std::size_t>(id)) pieces_.resize(static_cast<std::size_t>(id) + 1);
    pieces_[static_cast<std::size_t>(id)] = piece;
  }

  void read_pre_tokenizer(const json& p, const std::string& where) {
    if (p.is_null()) return;
    const std::string type = p.value("type", "");
    if (type == "Sequence") {
      for (const json& each : p.at("pretokenizers")) read_pre_tokenizer(each, where);
    } else if (type == "ByteLevel") {
      add_prefix_space_ = p.value("add_prefix_space", false);
      if (p.value("use_regex", true) && pattern_ != SplitPattern::none)
        throw std::runtime_error(where + ": a Split and ByteLevel's own split after it are not supported");
      if (p.value("use_regex", true)) pattern_ = SplitPattern::gpt2;
    } else if (type == "Digits") {
      individual_digits_ = p.value("individual_digits", false);
      if (!individual_digits_) throw std::runtime_error(where + ": Digits without individual_digits is not supported");
    } else if (type == "Split") {
      if (p.value("behavior", "") != "Isolated" || p.value("invert", false) || !p.at("pattern").contains("Regex"))
        throw std::runtime_error(where + ": only an Isolated Split by a Regex is supported");
      try {
        pattern_ = split_pattern_of(p.at("pattern").at("Regex").get<std::string>());
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(where + ": " + e.what());
      }
    } else {
      throw std::runtime_error(where + ": the pre_tokenizer " + type + " is not supported");
    }
  }

  void encode_plain(std::string_view text, std::vector<std::int32_t>& out) const {
    if (text.empty()) return;
    std::string prefixed;
    if (add_prefix_space_ && text.front() != ' ') {
      prefixed = " " + std::string(text);
      text = prefixed;
    }
    for (const std::string& word : pretokenize(text, pattern_, individual_digits_)) merge_word(word, out);
  }

  // One pre-tokenized piece: its bytes as byte-level symbols, merged pair by pair in the order of the merges.
  void merge_word(const std::string& word, std::vector<std::int32_t>& out) const {
    std::vector<std::string> symbols;
    std::string whole;
    for (const char b : word) {
      symbols.push_back(byte_piece_[static_cast<unsigned char>(b)]);
      whole += symbols.back();
    }
    if (ignore_merges_)
      if (const auto it = ids_.find(whole); it != ids_.end()) return out.push_back(it->second);
    for (;;) {
      std::int32_t best = INT32_MAX;
      for (std::size_t i = 0; i + 1 < symbols.size(); ++i)
        if (const auto it = ranks_.find(symbols[i] + " " + symbols[i + 1]); it != ranks_.end())
          best = std::min(best, it->second);
      if (best == INT32_MAX) break;
      std::vector<std::string> merged;
      for (std::size_t i = 0; i < symbols.size(); ++i) {
        const auto it = i + 1 < symbols.size() ? ranks_.find(symbols[i] + " " + symbols[i + 1]) : ranks_.end();
        if (it != ranks_.end() && it->second == best) {
          merged.push_back(symbols[i] + symbols[i + 1]);
          ++i;
        } else {
          merged.push_back(symbols[i]);
        }
      }
      symbols.swap(merged);
    }
    for (const std::string& s : symbols) {
      const auto it = ids_.find(s);
      if (it == ids_.end()) throw std::runtime_error("the tokenizer has no token for the piece '" + s + "'");
      out.push_back(it->second);
    }
  }

  std::unordered_map<std::string, std::int32_t> ids_;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, std::int32_t> ranks_;
  std::vector<std::pair<std::string, std::int32_t>> added_;  // longest first
  std::vector<std::int32_t> special_;
  std::array<std::string, 256> byte_piece_;
  std::unordered_map<std::string, char> piece_byte_;
  SplitPattern pattern_ = SplitPattern::none;
  bool individual_digits_ = false, add_prefix_space_ = false, ignore_merges_ = false;
};

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::load(const std::filesystem::path& tokenizer_json) {
  const std::string where = tokenizer_json.string();
  std::ifstream in(tokenizer_json);
  if (!in) throw std::runtime_error(where + ": cannot read it");
  const json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw std::runtime_error(where + ": not a JSON object");
  try {
    return std::make_unique<ByteLevelBpe>(doc, where);
  } catch (const json::exception& e) {
    throw std::runtime_error(where + ": " + e.what());
  }
}

}  // namespace kforge::serve
