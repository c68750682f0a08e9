// Expression: parse and check once, evaluate many times.
#include "kforge/scheduler/search/expression.hpp"

#include <stdexcept>

#include "expression_ast.hpp"

namespace kforge::scheduler {

ExpressionError::ExpressionError(std::size_t column, const std::string& problem)
    : std::invalid_argument("column " + std::to_string(column) + ": " + problem), column_(column), problem_(problem) {}

unsigned kind_of(const jobs::ParamValue& v) {
  if (std::holds_alternative<std::int64_t>(v)) return kind_int;
  if (std::holds_alternative<double>(v)) return kind_double;
  return kind_string;
}

bool truthy(const ExprValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i != 0;
  if (const auto* d = std::get_if<double>(&v)) return *d != 0.0;
  return !std::get<std::string>(v).empty();
}

Expression::Expression(std::string text, const NameKinds& names) : text_(std::move(text)) {
  if (text_.size() > kMaxExpressionChars)  // before tokenizing: tokens of a huge text cost memory too
    throw ExpressionError(kMaxExpressionChars + 1, "longer than " + std::to_string(kMaxExpressionChars) +
                                                       " characters (" + std::to_string(text_.size()) + ")");
  auto root = expr::parse(text_);
  expr::check(*root, names, text_);
  root_ = std::move(root);
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

ExprValue Expression::evaluate(const jobs::Genome& g) const { return expr::evaluate(*root_, g); }

bool Expression::holds(const jobs::Genome& g) const {
  try {
    return truthy(evaluate(g));
  } catch (const std::domain_error&) {
    return false;  // division by zero: the configuration is not valid
  }
}

}  // namespace kforge::scheduler
