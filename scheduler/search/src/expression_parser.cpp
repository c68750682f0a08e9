// Recursive-descent parser of constraint expressions (grammar and precedence: expression.hpp).
#include <utility>

#include "expression_ast.hpp"

namespace kforge::scheduler::expr {
namespace {

using NodePtr = std::unique_ptr<Node>;

const char* const kOperandHint = "an operand (a number, a 'string', True, False, a parameter name, '-', 'not' or '(')";

class Parser {
 public:
  explicit Parser(std::string_view text) : tokens_(tokenize(text)) {
    if (tokens_.size() - 1 > kMaxExpressionTokens)  // the last token is Kind::end
      throw ExpressionError(tokens_[kMaxExpressionTokens].begin + 1,
                            "more than " + std::to_string(kMaxExpressionTokens) +
                                " tokens (split it into several constraints: they all must hold)");
  }

  NodePtr parse_all() {
    NodePtr root = parse_or();
    if (peek().kind != Token::Kind::end)
      fail(peek(), "an operator (+ - * / // % ** == != < <= > >= in and or) or the end of the expression");
    return root;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const {
    const std::size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  // Symbols and keywords share one spelling check: names are never symbols.
  bool at(std::string_view spelling, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return (t.kind == Token::Kind::symbol || t.kind == Token::Kind::name) && t.text == spelling;
  }
  const Token& take() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }

  [[noreturn]] static void fail(const Token& t, const std::string& expected) {
    const std::string found = t.kind == Token::Kind::end ? "the end of the expression" : "'" + t.text + "'";
    throw ExpressionError(t.begin + 1, "expected " + expected + " but found " + found);
  }

  void expect(std::string_view spelling, const std::string& why) {
    if (!at(spelling)) fail(peek(), "'" + std::string(spelling) + "' " + why);
    take();
  }

  static NodePtr make(Op op, std::size_t begin, std::size_t end) {
    auto n = std::make_unique<Node>();
    n->op = op;
    n->begin = begin;
    n->end = end;
    return n;
  }

  static NodePtr binary(Op op, std::size_t op_at, NodePtr lhs, NodePtr rhs) {
    NodePtr n = make(op, lhs->begin, rhs->end);
    n->op_at = op_at;
    n->operands.push_back(std::move(lhs));
    n->operands.push_back(std::move(rhs));
    return n;
  }

  // Every nested '(' or list goes through parse_or again: that recursion is what the nesting limit bounds.
  class NestingGuard {
   public:
    NestingGuard(int& depth, const Token& at) : depth_(depth) {
      if (++depth_ > kMaxExpressionNesting)
        throw ExpressionError(at.begin + 1, "nested more than " + std::to_string(kMaxExpressionNesting) +
                                                " levels deep (parentheses and lists)");
    }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;
    ~NestingGuard() { --depth_; }

   private:
    int& depth_;
  };

  NodePtr parse_or() {
    const NestingGuard guard(depth_, peek());
    NodePtr lhs = parse_and();
    while (at("or") || at("||")) {
      const std::size_t op_at = take().begin;
      lhs = binary(Op::logical_or, op_at, std::move(lhs), parse_and());
    }
    return lhs;
  }

  NodePtr parse_and() {
    NodePtr lhs = parse_not();
    while (at("and") || at("&&")) {
      const std::size_t op_at = take().begin;
      lhs = binary(Op::logical_and, op_at, std::move(lhs), parse_not());
    }
    return lhs;
  }

  NodePtr parse_not() {
    if (at("not") || at("!")) {
      const std::size_t begin = take().begin;
      NodePtr operand = parse_not();
      NodePtr n = make(Op::logical_not, begin, operand->end);
      n->operands.push_back(std::move(operand));
      return n;
    }
    return parse_comparison();
  }

  bool at_comparison() const {
    return at("==") || at("!=") || at("<") || at("<=") || at(">") || at(">=") || at("in") || (at("not") && at("in", 1));
  }

  NodePtr parse_comparison() {
    NodePtr lhs = parse_additive();
    if (!at_comparison()) return lhs;
    NodePtr result = parse_comparison_rhs(std::move(lhs));
    if (at_comparison())
      throw ExpressionError(peek().begin + 1, "comparisons cannot be chained; write 'a < b and b < c' instead");
    return result;
  }

  NodePtr parse_comparison_rhs(NodePtr lhs) {
    if (at("in") || at("not")) {
      const bool negated = at("not");
      if (negated) take();
      take();
      return parse_list(negated ? Op::not_in : Op::in, std::move(lhs));
    }
    const Token& t = take();
    const std::string& spelling = t.text;
    const Op op = spelling == "=="   ? Op::eq
                  : spelling == "!=" ? Op::ne
                  : spelling == "<"  ? Op::lt
                  : spelling == "<=" ? Op::le
                  : spelling == ">"  ? Op::gt
                                     : Op::ge;
    return binary(op, t.begin, std::move(lhs), parse_additive());
  }

  // `in [a, b, c]` or `in (a, b, c)`; the needle is operand 0.
  NodePtr parse_list(Op op, NodePtr needle) {
    if (!at("[") && !at("(")) fail(peek(), "a list '[a, b, ...]' after 'in'");
    const std::string close = take().text == "[" ? "]" : ")";
    NodePtr n = make(op, needle->begin, needle->end);
    n->operands.push_back(std::move(needle));
    while (!at(close)) {
      n->operands.push_back(parse_or());
      if (!at(",")) break;
      take();
    }
    if (!at(close)) fail(peek(), "',' or '" + close + "' in the list after 'in'");
    n->end = take().end;
    return n;
  }

  NodePtr parse_additive() {
    NodePtr lhs = parse_multiplicative();
    while (at("+") || at("-")) {
      const Token& t = take();
      const Op op = t.text == "+" ? Op::add : Op::sub;
      lhs = binary(op, t.begin, std::move(lhs), parse_multiplicative());
    }
    return lhs;
  }

  NodePtr parse_multiplicative() {
    NodePtr lhs = parse_unary();
    while (at("*") || at("/") || at("//") || at("%")) {
      const Token& t = take();
      const Op op = t.text == "*" ? Op::mul : t.text == "/" ? Op::div : t.text == "//" ? Op::floor_div : Op::mod;
      lhs = binary(op, t.begin, std::move(lhs), parse_unary());
    }
    return lhs;
  }

  NodePtr parse_unary() {
    if (at("-") || at("+")) {
      const Token& sign = take();
      const Op op = sign.text == "-" ? Op::neg : Op::pos;
      const std::size_t begin = sign.begin;
      NodePtr operand = parse_unary();
      NodePtr n = make(op, begin, operand->end);
      n->op_at = begin;
      n->operands.push_back(std::move(operand));
      return n;
    }
    return parse_power();
  }

  // Python: -2 ** 2 == -4 and 2 ** -1 == 0.5, so the exponent is a unary expression.
  NodePtr parse_power() {
    NodePtr base = parse_primary();
    if (!at("**")) return base;
    const std::size_t op_at = take().begin;
    return binary(Op::pow, op_at, std::move(base), parse_unary());
  }

  NodePtr parse_primary() {
    const Token& t = peek();
    if (t.kind == Token::Kind::literal) {
      take();
      NodePtr n = make(Op::literal, t.begin, t.end);
      n->literal = t.value;
      return n;
    }
    if (t.kind == Token::Kind::name && !is_keyword(t.text)) {
      take();
      NodePtr n = make(Op::name, t.begin, t.end);
      n->name = t.text;
      return n;
    }
    if (at("(")) {
      const Token& open = take();
      NodePtr inner = parse_or();
      if (!at(")")) fail(peek(), "')' to close the '(' at column " + std::to_string(open.begin + 1));
      inner->begin = open.begin;
      inner->end = take().end;
      return inner;
    }
    fail(t, kOperandHint);
  }

  static bool is_keyword(const std::string& s) { return s == "and" || s == "or" || s == "not" || s == "in"; }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::unique_ptr<Node> parse(std::string_view text) { return Parser(text).parse_all(); }

}  // namespace kforge::scheduler::expr
