#pragma once
// Constraint expressions over tuning parameters, in the Python-like style Kernel Tuner users know:
//   "MC % MR == 0 and KC <= 512"    "LOOP_ORDER in ['jpi', 'pji']"    "not PACK or MR * (NR / VEC) <= 32"
// Literals: integers, floats, 'single' or "double" quoted strings, True, False. Names are parameters.
// Operators, loosest first: or ||, and &&, not !, comparisons (== != < <= > >=, in [..], not in [..]),
// + -, * / // %, unary - +, ** (right-associative). `/` is true division (a double), `//` and `%` floor like
// Python. `!` is a synonym of `not` and binds like it: `!a == b` means not (a == b).
// Comparisons do not chain (`a < b < c` is rejected: its meaning differs between Python and C).
// An expression is parsed and type-checked once, then evaluated many times against genomes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "kforge/jobs/genome.hpp"

namespace kforge::scheduler {

using ExprValue = std::variant<bool, std::int64_t, double, std::string>;

// Limits that keep parsing, checking and evaluating (all recursive) far from the stack's end; a longer or deeper
// expression is an ExpressionError, never a crash (docs/campaign-schema.md, "Limits").
inline constexpr std::size_t kMaxExpressionChars = 4096;
inline constexpr std::size_t kMaxExpressionTokens = 1024;
inline constexpr int kMaxExpressionNesting = 64;  // parentheses and lists inside each other

// Kinds of value a name can hold, as bits; the checker rejects any operation that could fail on one of them
// (e.g. `LOOP_ORDER * 2`, or `X < 3` when X's list mixes strings and numbers).
enum ValueKind : unsigned { kind_bool = 1U, kind_int = 2U, kind_double = 4U, kind_string = 8U };
constexpr unsigned kind_number = kind_bool | kind_int | kind_double;
using NameKinds = std::map<std::string, unsigned, std::less<>>;

unsigned kind_of(const jobs::ParamValue& v);

// A syntax, name or type error; what() is "column N: <what is wrong, what was expected>".
class ExpressionError : public std::invalid_argument {
 public:
  ExpressionError(std::size_t column, const std::string& problem);
  std::size_t column() const { return column_; }  // 1-based, in characters of the expression text
  const std::string& problem() const { return problem_; }

 private:
  std::size_t column_;
  std::string problem_;
};

namespace expr {
struct Node;
}

class Expression {
 public:
  // Parses and checks `text`; every name must be a key of `names`. Throws ExpressionError.
  Expression(std::string text, const NameKinds& names);
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  const std::string& text() const { return text_; }

  // The value of the expression for `g`. Throws std::domain_error on division by zero and
  // std::invalid_argument when `g` lacks a name the expression uses.
  ExprValue evaluate(const jobs::Genome& g) const;
  // Python truthiness of evaluate(g); a division by zero makes it false (the configuration is rejected).
  bool holds(const jobs::Genome& g) const;

 private:
  std::string text_;
  std::unique_ptr<const expr::Node> root_;
};

bool truthy(const ExprValue& v);

}  // namespace kforge::scheduler
