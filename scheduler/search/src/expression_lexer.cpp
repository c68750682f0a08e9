// Tokenizer of constraint expressions.
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "expression_ast.hpp"

namespace kforge::scheduler::expr {
namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Longest first, so "**" wins over "*" and "!=" over "!".
constexpr std::array<std::string_view, 21> kSymbols = {"**", "//", "==", "!=", "<=", ">=", "&&", "||", "+", "-", "*",
                                                       "/",  "%",  "<",  ">",  "!",  "(",  ")",  "[",  "]", ","};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (true) {
      skip_spaces();
      if (pos_ == text_.size()) break;
      tokens.push_back(next());
    }
    Token end;
    end.begin = end.end = text_.size();
    tokens.push_back(end);
    return tokens;
  }

 private:
  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) ++pos_;
  }

  Token next() {
    const char c = text_[pos_];
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) return number();
    if (is_name_start(c)) return name();
    if (c == '\'' || c == '"') return string_literal();
    return symbol();
  }

  Token make(Token::Kind kind, std::size_t begin) const {
    Token t;
    t.kind = kind;
    t.begin = begin;
    t.end = pos_;
    t.text = std::string(text_.substr(begin, pos_ - begin));
    return t;
  }

  void skip_digits() {
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
  }

  Token number() {
    const std::size_t begin = pos_;
    bool is_float = false;
    skip_digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      skip_digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t exp = pos_ + 1;
      if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-')) ++exp;
      if (exp < text_.size() && is_digit(text_[exp])) {
        is_float = true;
        pos_ = exp;
        skip_digits();
      }
    }
    if (pos_ < text_.size() && is_name_char(text_[pos_]))
      throw ExpressionError(pos_ + 1, "unexpected '" + std::string(1, text_[pos_]) +
                                          "' in a number; expected digits, '.', an exponent or an operator");
    Token t = make(Token::Kind::literal, begin);
    if (is_float) {
      // The grammar above only admits what strtod reads whole; ERANGE is a literal no double holds (or only as 0).
      errno = 0;
      const double v = std::strtod(t.text.c_str(), nullptr);
      if (errno == ERANGE)
        throw ExpressionError(begin + 1, "number " + t.text.substr(0, 40) +
                                             " is out of the range of a double (about 2.2e-308 to 1.8e308)");
      t.value = v;
    } else {
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (ec != std::errc{} || ptr != t.text.data() + t.text.size())
        throw ExpressionError(begin + 1,
                              "integer " + t.text + " is out of range; expected at most 9223372036854775807");
      t.value = v;
    }
    return t;
  }

  Token name() {
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    Token t = make(Token::Kind::name, begin);
    if (t.text == "True" || t.text == "False") {
      t.kind = Token::Kind::literal;
      t.value = (t.text == "True");
    }
    return t;
  }

  Token string_literal() {
    const std::size_t begin = pos_;
    const char quote = text_[pos_++];
    std::string content;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        const char e = text_[pos_++];
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
      }
      content += c;
    }
    if (pos_ == text_.size())
      throw ExpressionError(begin + 1, std::string("string is not closed; expected a closing ") + quote);
    ++pos_;
    Token t = make(Token::Kind::literal, begin);
    t.value = std::move(content);
    return t;
  }

  Token symbol() {
    const std::size_t begin = pos_;
    for (const std::string_view s : kSymbols) {
      if (text_.substr(pos_, s.size()) == s) {
        pos_ += s.size();
        return make(Token::Kind::symbol, begin);
      }
    }
    const char c = text_[pos_];
    std::string hint = "expected a number, a 'string', a parameter name, an operator or a parenthesis";
    if (c == '=') hint = "did you mean '=='?";
    if (c == '&') hint = "did you mean 'and' (or '&&')?";
    if (c == '|') hint = "did you mean 'or' (or '||')?";
    throw ExpressionError(begin + 1, "unexpected character '" + std::string(1, c) + "'; " + hint);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text) { return Lexer(text).run(); }

}  // namespace kforge::scheduler::expr
