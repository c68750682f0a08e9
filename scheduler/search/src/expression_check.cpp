// Static checks of a parsed expression: names exist, and no operation can meet a value it cannot take.
// Doing this once at load time means a bad constraint is a config error with a location, not a surprise
// halfway through a campaign.
#include <string>

#include "expression_ast.hpp"

namespace kforge::scheduler::expr {
namespace {

std::string describe_kinds(unsigned kinds) {
  std::string out;
  const auto add = [&](unsigned bit, const char* word) {
    if ((kinds & bit) == 0) return;
    if (!out.empty()) out += " or ";
    out += word;
  };
  add(kind_bool, "a boolean");
  add(kind_int, "an integer");
  add(kind_double, "a float");
  add(kind_string, "a string");
  return out;
}

std::string slice(const Node& n, std::string_view text) { return std::string(text.substr(n.begin, n.end - n.begin)); }

[[noreturn]] void type_error(const Node& op_node, const Node& operand, unsigned kinds, std::string_view text,
                             const std::string& needed) {
  throw ExpressionError(op_node.op_at + 1, "'" + std::string(symbol_of(op_node.op)) + "' needs " + needed + ", but '" +
                                               slice(operand, text) + "' can be " + describe_kinds(kinds));
}

std::string known_names(const NameKinds& names) {
  if (names.empty()) return "there are no parameters";
  std::string out = "known parameters: ";
  for (auto it = names.begin(); it != names.end(); ++it) out += (it == names.begin() ? "" : ", ") + it->first;
  return out;
}

bool is_arithmetic(Op op) {
  return op == Op::add || op == Op::sub || op == Op::mul || op == Op::div || op == Op::floor_div || op == Op::mod ||
         op == Op::pow;
}
bool is_ordering(Op op) { return op == Op::lt || op == Op::le || op == Op::gt || op == Op::ge; }
bool only(unsigned kinds, unsigned allowed) { return (kinds & ~allowed) == 0; }

unsigned check_binary(const Node& n, unsigned lhs, unsigned rhs, std::string_view text) {
  const Node& l = *n.operands[0];
  const Node& r = *n.operands[1];
  if (is_arithmetic(n.op)) {
    if (n.op == Op::add && lhs == kind_string && rhs == kind_string) return kind_string;  // concatenation
    if (!only(lhs, kind_number)) type_error(n, l, lhs, text, "numbers");
    if (!only(rhs, kind_number)) type_error(n, r, rhs, text, "numbers");
    // Integer results fall back to a double on overflow, and `/` always gives a double.
    return n.op == Op::div ? kind_double : (kind_int | kind_double);
  }
  if (is_ordering(n.op)) {
    const bool numbers = only(lhs, kind_number) && only(rhs, kind_number);
    const bool strings = lhs == kind_string && rhs == kind_string;
    if (!numbers && !strings)
      throw ExpressionError(n.op_at + 1, "'" + std::string(symbol_of(n.op)) +
                                             "' needs two numbers or two strings, but '" + slice(l, text) +
                                             "' can be " + describe_kinds(lhs) + " and '" + slice(r, text) +
                                             "' can be " + describe_kinds(rhs));
  }
  return kind_bool;  // comparisons, and, or
}

}  // namespace

std::string_view symbol_of(Op op) {
  switch (op) {
    case Op::literal:
      return "literal";
    case Op::name:
      return "name";
    case Op::neg:
      return "-";
    case Op::pos:
      return "+";
    case Op::logical_not:
      return "not";
    case Op::logical_and:
      return "and";
    case Op::logical_or:
      return "or";
    case Op::add:
      return "+";
    case Op::sub:
      return "-";
    case Op::mul:
      return "*";
    case Op::div:
      return "/";
    case Op::floor_div:
      return "//";
    case Op::mod:
      return "%";
    case Op::pow:
      return "**";
    case Op::eq:
      return "==";
    case Op::ne:
      return "!=";
    case Op::lt:
      return "<";
    case Op::le:
      return "<=";
    case Op::gt:
      return ">";
    case Op::ge:
      return ">=";
    case Op::in:
      return "in";
    case Op::not_in:
      return "not in";
  }
  return "?";
}

unsigned check(const Node& n, const NameKinds& names, std::string_view text) {
  switch (n.op) {
    case Op::literal:
      return 1U << n.literal.index();  // ExprValue's order matches the ValueKind bits
    case Op::name: {
      const auto it = names.find(n.name);
      if (it == names.end())
        throw ExpressionError(n.begin + 1, "unknown parameter '" + n.name + "'; " + known_names(names));
      return it->second;
    }
    case Op::neg:
    case Op::pos: {
      const unsigned k = check(*n.operands[0], names, text);
      if (!only(k, kind_number)) type_error(n, *n.operands[0], k, text, "a number");
      return kind_int | kind_double;
    }
    case Op::logical_not:
    case Op::in:
    case Op::not_in:
      for (const auto& operand : n.operands) check(*operand, names, text);
      return kind_bool;
    default: {
      const unsigned lhs = check(*n.operands[0], names, text);
      const unsigned rhs = check(*n.operands[1], names, text);
      return check_binary(n, lhs, rhs, text);
    }
  }
}

}  // namespace kforge::scheduler::expr
