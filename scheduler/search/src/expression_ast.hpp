#pragma once
// Internals of Expression: tokens, the syntax tree, and the passes over it (parse, check, evaluate).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/scheduler/search/expression.hpp"

namespace kforge::scheduler::expr {

struct Token {
  enum class Kind { literal, name, symbol, end };
  Kind kind = Kind::end;
  std::string text;       // symbols and names as written; the source slice for literals
  ExprValue value;        // literals only
  std::size_t begin = 0;  // byte offsets into the expression text
  std::size_t end = 0;
};

// Splits `text` into tokens ending with one Kind::end token. Throws ExpressionError.
std::vector<Token> tokenize(std::string_view text);

enum class Op {
  literal,
  name,
  neg,
  pos,
  logical_not,
  logical_and,
  logical_or,
  add,
  sub,
  mul,
  div,
  floor_div,
  mod,
  pow,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  in,
  not_in,
};

struct Node {
  Op op = Op::literal;
  std::size_t begin = 0;  // source slice the node was parsed from
  std::size_t end = 0;
  std::size_t op_at = 0;                        // where the operator itself is written, for messages
  ExprValue literal;                            // Op::literal
  std::string name;                             // Op::name
  std::vector<std::unique_ptr<Node>> operands;  // in / not_in: the needle, then the list items
};

std::unique_ptr<Node> parse(std::string_view text);  // throws ExpressionError
// The kinds of value `node` can produce; throws ExpressionError on unknown names and type errors.
unsigned check(const Node& node, const NameKinds& names, std::string_view text);
ExprValue evaluate(const Node& node, const jobs::Genome& g);  // see Expression::evaluate

std::string_view symbol_of(Op op);  // "+", "//", "and", "in", ... for messages

}  // namespace kforge::scheduler::expr
