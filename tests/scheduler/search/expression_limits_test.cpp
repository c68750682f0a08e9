// Expressions beyond the documented limits (expression.hpp: length, tokens, nesting) are ExpressionErrors with a
// message, in every shape that used to recurse without bound (nested parentheses and lists, chained binary
// operators, chained unary operators); expressions just inside the limits parse and evaluate.
#include <gtest/gtest.h>

#include <string>

#include "kforge/scheduler/search/expression.hpp"

namespace kforge::scheduler {
namespace {

const NameKinds kNames = {{"A", kind_int}, {"S", kind_string}};

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string error_of(const std::string& text) {
  try {
    Expression e(text, kNames);
  } catch (const ExpressionError& e) {
    return e.problem();
  }
  return "no error";
}

TEST(ExpressionLimits, EveryRecursiveShapeBeyondTheLimitsIsRefusedWithAMessage) {
  const std::size_t huge = 20000;
  const std::string cases[] = {
      repeat("(", huge) + "A" + repeat(")", huge),            // nested parentheses
      "A in " + repeat("[", huge) + "1" + repeat("]", huge),  // nested lists
      "A" + repeat(" + A", huge) + " > 0",                    // chained terms
      "A" + repeat(" ** A", huge),                            // right-associative chain
      repeat("not ", huge) + "A",                             // chained negations
      repeat("-", huge) + "A > 0",                            // chained signs
      "A" + repeat(" or A", huge),                            // chained booleans
  };
  for (const auto& text : cases) {
    const std::string problem = error_of(text);
    EXPECT_NE(problem, "no error") << text.substr(0, 40);
    EXPECT_NE(problem.find("longer than 4096 characters"), std::string::npos) << problem;
  }
}

TEST(ExpressionLimits, NestingBeyondSixtyFourLevelsIsRefusedAtTheOffendingParenthesis) {
  EXPECT_EQ(error_of(repeat("(", 63) + "A" + repeat(")", 63) + " > 0"), "no error");
  const std::string deep = error_of(repeat("(", 64) + "A" + repeat(")", 64) + " > 0");
  EXPECT_EQ(deep, "nested more than 64 levels deep (parentheses and lists)");
  EXPECT_NE(error_of("A in [" + repeat("(", 70) + "1" + repeat(")", 70) + "]").find("nested more than 64"),
            std::string::npos);
}

TEST(ExpressionLimits, MoreThanTheTokenLimitIsRefusedWithinTheLengthLimit) {
  const std::string ok = "A" + repeat("+A", 500) + ">0";  // 1004 tokens
  ASSERT_LE(ok.size(), kMaxExpressionChars);
  EXPECT_EQ(error_of(ok), "no error");
  const std::string many = "A" + repeat("+A", 600) + ">0";  // 1204 tokens, 1205 characters
  ASSERT_LE(many.size(), kMaxExpressionChars);
  EXPECT_NE(error_of(many).find("more than 1024 tokens"), std::string::npos);
  EXPECT_NE(error_of(repeat("-", 2000) + "A").find("more than 1024 tokens"), std::string::npos);
}

TEST(ExpressionLimits, ExpressionsInsideTheLimitsEvaluate) {
  jobs::Genome g;
  g.params["A"] = std::int64_t{3};
  g.params["S"] = std::string("x");
  Expression nested(repeat("(", 60) + "A" + repeat(")", 60) + " == 3", kNames);
  EXPECT_TRUE(nested.holds(g));
  Expression chained("A" + repeat(" + A", 500) + " == 1503", kNames);
  EXPECT_TRUE(chained.holds(g));
  Expression negated(repeat("not ", 500) + "A", kNames);
  EXPECT_TRUE(negated.holds(g));
}

// Found by fuzzing (tests/fuzz/crashes/fuzz_expression/number-literal-out-of-double-range): a float literal no
// double holds was a std::out_of_range escaping Expression.
TEST(ExpressionLimits, FloatLiteralsBeyondTheRangeOfADoubleAreRefusedAtTheirColumn) {
  for (const std::string text : {"A < 6e513", "A < 1e-7777"}) {
    SCOPED_TRACE(text);
    EXPECT_NE(error_of(text).find("out of the range of a double"), std::string::npos) << error_of(text);
  }
  EXPECT_EQ(error_of("A < 1.5e300"), "no error");
}

}  // namespace
}  // namespace kforge::scheduler
