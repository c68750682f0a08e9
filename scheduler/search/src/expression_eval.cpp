// Evaluation of a checked expression with Python semantics: bools count as integers in arithmetic, `/` is
// true division, `//` and `%` floor, integer overflow falls back to double (Python would use a big integer).
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "expression_ast.hpp"

namespace kforge::scheduler::expr {
namespace {

struct Number {
  bool is_int = true;
  std::int64_t i = 0;
  double d = 0.0;
  double as_double() const { return is_int ? static_cast<double>(i) : d; }
};

Number to_number(const ExprValue& v, const Node& where) {
  if (const auto* b = std::get_if<bool>(&v)) return {true, *b ? 1 : 0, 0.0};
  if (const auto* i = std::get_if<std::int64_t>(&v)) return {true, *i, 0.0};
  if (const auto* d = std::get_if<double>(&v)) return {false, 0, *d};
  // Only reachable for a genome whose value kind differs from the one the expression was checked against.
  throw std::invalid_argument("column " + std::to_string(where.begin + 1) + ": expected a number but got a string");
}

ExprValue from_number(const Number& n) { return n.is_int ? ExprValue(n.i) : ExprValue(n.d); }

[[noreturn]] void divide_by_zero(const Node& n) {
  throw std::domain_error("column " + std::to_string(n.op_at + 1) + ": division by zero in '" +
                          std::string(symbol_of(n.op)) + "'");
}

double floor_mod(double a, double b) {
  const double r = std::fmod(a, b);
  return (r != 0.0 && ((r < 0.0) != (b < 0.0))) ? r + b : r;
}

ExprValue int_power(std::int64_t base, std::int64_t exp) {
  if (exp < 0) return std::pow(static_cast<double>(base), static_cast<double>(exp));
  std::int64_t result = 1;
  std::int64_t b = base;
  for (std::int64_t e = exp; e > 0; e >>= 1) {
    if ((e & 1) != 0 && __builtin_mul_overflow(result, b, &result))
      return std::pow(static_cast<double>(base), static_cast<double>(exp));
    if (e > 1 && __builtin_mul_overflow(b, b, &b)) return std::pow(static_cast<double>(base), static_cast<double>(exp));
  }
  return result;
}

ExprValue int_arithmetic(const Node& n, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  const double da = static_cast<double>(a);
  const double db = static_cast<double>(b);
  switch (n.op) {
    case Op::add:
      return __builtin_add_overflow(a, b, &r) ? ExprValue(da + db) : ExprValue(r);
    case Op::sub:
      return __builtin_sub_overflow(a, b, &r) ? ExprValue(da - db) : ExprValue(r);
    case Op::mul:
      return __builtin_mul_overflow(a, b, &r) ? ExprValue(da * db) : ExprValue(r);
    case Op::pow:
      return int_power(a, b);
    default:
      break;
  }
  if (b == 0) divide_by_zero(n);
  if (b == -1 && a == INT64_MIN) return n.op == Op::floor_div ? ExprValue(-da) : ExprValue(std::int64_t{0});
  std::int64_t q = a / b;
  std::int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) {  // C truncates toward zero; Python floors
    --q;
    m += b;
  }
  return n.op == Op::floor_div ? q : m;
}

ExprValue arithmetic(const Node& n, const ExprValue& lhs, const ExprValue& rhs) {
  if (n.op == Op::add && std::holds_alternative<std::string>(lhs) && std::holds_alternative<std::string>(rhs))
    return std::get<std::string>(lhs) + std::get<std::string>(rhs);
  const Number a = to_number(lhs, *n.operands[0]);
  const Number b = to_number(rhs, *n.operands[1]);
  if (n.op == Op::div) {
    if (b.as_double() == 0.0) divide_by_zero(n);
    return a.as_double() / b.as_double();
  }
  if (a.is_int && b.is_int) return int_arithmetic(n, a.i, b.i);
  const double x = a.as_double();
  const double y = b.as_double();
  switch (n.op) {
    case Op::add:
      return x + y;
    case Op::sub:
      return x - y;
    case Op::mul:
      return x * y;
    case Op::pow:
      if (x == 0.0 && y < 0.0) divide_by_zero(n);
      return std::pow(x, y);
    default:
      break;
  }
  if (y == 0.0) divide_by_zero(n);
  return n.op == Op::floor_div ? std::floor(x / y) : floor_mod(x, y);
}

template <typename T>
bool apply_order(Op op, const T& a, const T& b) {
  switch (op) {
    case Op::lt:
      return a < b;
    case Op::le:
      return a <= b;
    case Op::gt:
      return a > b;
    default:
      return a >= b;
  }
}

// < <= > >= on two strings or two numbers (the checker guarantees one of the two).
bool ordering(const Node& n, const ExprValue& lhs, const ExprValue& rhs) {
  if (std::holds_alternative<std::string>(lhs) && std::holds_alternative<std::string>(rhs))
    return apply_order(n.op, std::get<std::string>(lhs), std::get<std::string>(rhs));
  const Number a = to_number(lhs, *n.operands[0]);
  const Number b = to_number(rhs, *n.operands[1]);
  if (a.is_int && b.is_int) return apply_order(n.op, a.i, b.i);
  return apply_order(n.op, a.as_double(), b.as_double());
}

bool equal(const ExprValue& lhs, const ExprValue& rhs) {
  const bool ls = std::holds_alternative<std::string>(lhs);
  const bool rs = std::holds_alternative<std::string>(rhs);
  if (ls || rs) return ls && rs && std::get<std::string>(lhs) == std::get<std::string>(rhs);
  const auto num = [](const ExprValue& v) {
    if (const auto* b = std::get_if<bool>(&v)) return Number{true, *b ? 1 : 0, 0.0};
    if (const auto* i = std::get_if<std::int64_t>(&v)) return Number{true, *i, 0.0};
    return Number{false, 0, std::get<double>(v)};
  };
  const Number a = num(lhs);
  const Number b = num(rhs);
  return (a.is_int && b.is_int) ? a.i == b.i : a.as_double() == b.as_double();
}

bool comparison(const Node& n, const ExprValue& lhs, const ExprValue& rhs) {
  if (n.op == Op::eq) return equal(lhs, rhs);
  if (n.op == Op::ne) return !equal(lhs, rhs);
  return ordering(n, lhs, rhs);
}

ExprValue lookup(const Node& n, const jobs::Genome& g) {
  const auto it = g.params.find(n.name);
  if (it == g.params.end())
    throw std::invalid_argument("column " + std::to_string(n.begin + 1) + ": the genome has no parameter '" + n.name +
                                "'");
  return std::visit([](const auto& v) { return ExprValue(v); }, it->second);
}

ExprValue membership(const Node& n, const jobs::Genome& g) {
  const ExprValue needle = evaluate(*n.operands[0], g);
  bool found = false;
  for (std::size_t i = 1; i < n.operands.size() && !found; ++i) found = equal(needle, evaluate(*n.operands[i], g));
  return n.op == Op::in ? found : !found;
}

}  // namespace

ExprValue evaluate(const Node& n, const jobs::Genome& g) {
  switch (n.op) {
    case Op::literal:
      return n.literal;
    case Op::name:
      return lookup(n, g);
    case Op::logical_not:
      return !truthy(evaluate(*n.operands[0], g));
    case Op::logical_and:
      return truthy(evaluate(*n.operands[0], g)) && truthy(evaluate(*n.operands[1], g));
    case Op::logical_or:
      return truthy(evaluate(*n.operands[0], g)) || truthy(evaluate(*n.operands[1], g));
    case Op::in:
    case Op::not_in:
      return membership(n, g);
    case Op::neg:
    case Op::pos: {
      const Number x = to_number(evaluate(*n.operands[0], g), *n.operands[0]);
      if (n.op == Op::pos) return from_number(x);
      if (x.is_int && x.i != INT64_MIN) return -x.i;
      return -x.as_double();
    }
    default:
      break;
  }
  const ExprValue lhs = evaluate(*n.operands[0], g);
  const ExprValue rhs = evaluate(*n.operands[1], g);
  if (n.op >= Op::eq) return comparison(n, lhs, rhs);
  return arithmetic(n, lhs, rhs);
}

}  // namespace kforge::scheduler::expr
