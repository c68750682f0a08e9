// Constraint expressions: precedence, every operator, Python semantics, and errors that point at a column.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kforge/scheduler/search/expression.hpp"

namespace kforge::scheduler {
namespace {

jobs::Genome sample_genome() {
  jobs::Genome g;
  g.params["MC"] = std::int64_t{64};
  g.params["MR"] = std::int64_t{6};
  g.params["ZERO"] = std::int64_t{0};
  g.params["ALPHA"] = 0.5;
  g.params["ORDER"] = std::string("jpi");
  return g;
}

NameKinds kinds_of(const jobs::Genome& g) {
  NameKinds k;
  for (const auto& [name, value] : g.params) k[name] = kind_of(value);
  return k;
}

ExprValue eval(const std::string& text) {
  const jobs::Genome g = sample_genome();
  return Expression(text, kinds_of(g)).evaluate(g);
}

bool holds(const std::string& text) {
  const jobs::Genome g = sample_genome();
  return Expression(text, kinds_of(g)).holds(g);
}

std::int64_t as_int(const ExprValue& v) { return std::get<std::int64_t>(v); }
double as_double(const ExprValue& v) { return std::get<double>(v); }

// The column ExpressionError reports for `text`, or 0 if it parsed.
std::size_t error_column(const std::string& text) {
  try {
    Expression e(text, kinds_of(sample_genome()));
  } catch (const ExpressionError& err) {
    return err.column();
  }
  return 0;
}

TEST(Expression, ArithmeticFollowsPythonPrecedence) {
  EXPECT_EQ(as_int(eval("1 + 2 * 3")), 7);
  EXPECT_EQ(as_int(eval("(1 + 2) * 3")), 9);
  EXPECT_EQ(as_int(eval("10 - 4 - 3")), 3);     // left-associative
  EXPECT_EQ(as_int(eval("2 ** 3 ** 2")), 512);  // right-associative
  EXPECT_EQ(as_int(eval("-2 ** 2")), -4);       // ** binds tighter than unary minus
  EXPECT_DOUBLE_EQ(as_double(eval("2 ** -1")), 0.5);
  EXPECT_EQ(as_int(eval("MC // MR * MR + MC % MR")), 64);
  EXPECT_EQ(as_int(eval("-MR + +3")), -3);
}

TEST(Expression, DivisionOperatorsMatchPython) {
  EXPECT_DOUBLE_EQ(as_double(eval("7 / 2")), 3.5);  // true division
  EXPECT_DOUBLE_EQ(as_double(eval("MC / 32")), 2.0);
  EXPECT_EQ(as_int(eval("7 // 2")), 3);
  EXPECT_EQ(as_int(eval("-7 // 2")), -4);  // floors
  EXPECT_EQ(as_int(eval("-7 % 3")), 2);    // sign of the divisor
  EXPECT_EQ(as_int(eval("7 % -3")), -2);
  EXPECT_DOUBLE_EQ(as_double(eval("7.5 // 2")), 3.0);
  EXPECT_DOUBLE_EQ(as_double(eval("-7.5 % 2")), 0.5);
  EXPECT_DOUBLE_EQ(as_double(eval("ALPHA * 4")), 2.0);
  EXPECT_DOUBLE_EQ(as_double(eval("1e3 + .5")), 1000.5);
}

TEST(Expression, IntegerOverflowFallsBackToDouble) {
  EXPECT_DOUBLE_EQ(as_double(eval("9223372036854775807 + 1")), 9223372036854775808.0);
  EXPECT_DOUBLE_EQ(as_double(eval("2 ** 64")), 18446744073709551616.0);
}

TEST(Expression, ComparisonsOfNumbers) {
  EXPECT_TRUE(holds("MC == 64"));
  EXPECT_TRUE(holds("MC != 63"));
  EXPECT_TRUE(holds("MR < 7"));
  EXPECT_FALSE(holds("MR < 6"));
  EXPECT_TRUE(holds("MR <= 6"));
  EXPECT_TRUE(holds("MC > MR"));
  EXPECT_FALSE(holds("MC >= 65"));
  EXPECT_TRUE(holds("MC / 2 == 32"));    // double equals integer
  EXPECT_TRUE(holds("True == 1"));       // bools count as integers
  EXPECT_TRUE(holds("1 + 2 * 3 == 7"));  // arithmetic binds tighter than comparison
}

TEST(Expression, StringsCompareAndMatch) {
  EXPECT_TRUE(holds("ORDER == 'jpi'"));
  EXPECT_TRUE(holds("ORDER == \"jpi\""));
  EXPECT_FALSE(holds("ORDER != 'jpi'"));
  EXPECT_TRUE(holds("ORDER < 'pji'"));
  EXPECT_TRUE(holds("'abc' >= 'abb'"));
  EXPECT_FALSE(holds("ORDER == 64"));  // unlike kinds are unequal, as in Python
  EXPECT_TRUE(holds("ORDER + 'x' == 'jpix'"));
  EXPECT_TRUE(holds("'it\\'s' == \"it's\""));
}

TEST(Expression, LogicalOperatorsAndTheirPrecedence) {
  EXPECT_TRUE(holds("MC == 64 and MR == 6"));
  EXPECT_FALSE(holds("MC == 64 and MR == 5"));
  EXPECT_TRUE(holds("MC == 1 or MR == 6"));
  EXPECT_TRUE(holds("MC == 64 && MR == 6"));
  EXPECT_TRUE(holds("MC == 1 || MR == 6"));
  EXPECT_TRUE(holds("not MC == 1"));  // not binds looser than ==
  EXPECT_TRUE(holds("!(MC == 1)"));
  EXPECT_TRUE(holds("True or False and False"));  // and binds tighter than or
  EXPECT_FALSE(holds("(True or False) and False"));
  EXPECT_TRUE(holds("not False and True"));  // not binds tighter than and
  EXPECT_FALSE(holds("ZERO"));               // truthiness of numbers and strings
  EXPECT_TRUE(holds("ORDER"));
  EXPECT_FALSE(holds("''"));
}

TEST(Expression, InAndNotInLists) {
  EXPECT_TRUE(holds("MC in [16, 32, 64]"));
  EXPECT_FALSE(holds("MC in [16, 32]"));
  EXPECT_TRUE(holds("MC not in [16, 32]"));
  EXPECT_TRUE(holds("ORDER in ['pji', 'jpi']"));
  EXPECT_TRUE(holds("MR in (2 * 3, 7)"));
  EXPECT_FALSE(holds("MR in []"));
  EXPECT_TRUE(holds("not MR in [1, 2] and MR in [6]"));
}

TEST(Expression, DivisionByZeroMakesTheConstraintFalse) {
  EXPECT_FALSE(holds("MC / ZERO > 1"));
  EXPECT_FALSE(holds("MC // ZERO == 0"));
  EXPECT_FALSE(holds("MC % ZERO == 0"));
  EXPECT_FALSE(holds("not (MC % ZERO == 0)"));  // the whole constraint, not just the comparison
  EXPECT_FALSE(holds("ALPHA / 0.0 > 1"));
  EXPECT_TRUE(holds("ZERO == 0 or MC / ZERO > 1"));  // short-circuit: never divides
  const jobs::Genome g = sample_genome();
  EXPECT_THROW(Expression("MC % ZERO", kinds_of(g)).evaluate(g), std::domain_error);
}

TEST(Expression, ParseErrorsNameTheColumnAndWhatWasExpected) {
  EXPECT_EQ(error_column("MC % "), 6u);
  EXPECT_EQ(error_column("(MC + 1"), 8u);
  EXPECT_EQ(error_column("MC = 64"), 4u);
  EXPECT_EQ(error_column("MC 64"), 4u);
  EXPECT_EQ(error_column("MC in 64"), 7u);
  EXPECT_EQ(error_column("'open"), 1u);
  EXPECT_EQ(error_column("MC # 2"), 4u);
  EXPECT_EQ(error_column("1 < MC < 100"), 8u);  // chaining is rejected, not silently C-style
  try {
    Expression e("(MC + 1", kinds_of(sample_genome()));
    FAIL() << "parsed an unclosed parenthesis";
  } catch (const ExpressionError& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("column 8"), std::string::npos) << what;
    EXPECT_NE(what.find("')'"), std::string::npos) << what;
    EXPECT_NE(what.find("end of the expression"), std::string::npos) << what;
  }
}

TEST(Expression, UnknownNameIsAnInvalidArgumentListingTheKnownOnes) {
  try {
    Expression e("MC % NR == 0", kinds_of(sample_genome()));
    FAIL() << "accepted an unknown name";
  } catch (const std::invalid_argument& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("column 6"), std::string::npos) << what;
    EXPECT_NE(what.find("'NR'"), std::string::npos) << what;
    EXPECT_NE(what.find("MC, MR"), std::string::npos) << what;
  }
}

TEST(Expression, TypeErrorsAreRejectedAtParseTime) {
  EXPECT_EQ(error_column("ORDER * 2 == 4"), 7u);  // points at the operator
  EXPECT_EQ(error_column("ORDER < 3"), 7u);
  EXPECT_GT(error_column("-ORDER"), 0u);
  EXPECT_EQ(error_column("ORDER == 3"), 0u);  // equality across kinds is fine
  NameKinds mixed{{"X", kind_int | kind_string}};
  EXPECT_THROW(Expression("X > 1", mixed), ExpressionError);
  EXPECT_NO_THROW(Expression("X in [1, 'a']", mixed));
}

}  // namespace
}  // namespace kforge::scheduler
