// JSON text (json_text.hpp): the one escaper, number format and writer every part of kforge writes JSON with.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>

#include "kforge/jobs/json_text.hpp"

using kforge::jobs::json_number;
using kforge::jobs::json_string;
using kforge::jobs::JsonWriter;

TEST(JsonWriter, NestsObjectsAndArraysWithCommasInTheRightPlaces) {
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_object().field("a", 1).key("b").begin_array().value(2).value("x").end_array();
  w.key("c").begin_object().field("d", true).end_object().end_object();
  EXPECT_EQ(out.str(), R"({"a":1,"b":[2,"x"],"c":{"d":true}})");
}

TEST(JsonWriter, EscapesStringsAndWritesNonFiniteNumbersAsNull) {
  std::ostringstream out;
  JsonWriter w(out);
  w.begin_array().value("q\"\\\n\x01").value(std::numeric_limits<double>::quiet_NaN()).value(0.5).end_array();
  EXPECT_EQ(out.str(), R"(["q\"\\\n\u0001",null,0.5])");
}

TEST(JsonText, StringsEscapeQuotesBackslashesAndControlBytesAndKeepUtf8) {
  EXPECT_EQ(json_string("plain"), R"("plain")");
  EXPECT_EQ(json_string("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(json_string("l1\nl2\r\t\x1b"), R"("l1\nl2\r\t\u001b")");
  EXPECT_EQ(json_string("\xc3\xa9t\xc3\xa9"), "\"\xc3\xa9t\xc3\xa9\"");  // UTF-8 passes through
  EXPECT_EQ(json_string(std::string("nul\0byte", 8)), R"("nul\u0000byte")");
}

TEST(JsonText, NumbersAreNullWhenNotFiniteAndTakeTheDigitsAsked) {
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(json_number(std::numeric_limits<double>::quiet_NaN()), "null");
  EXPECT_EQ(json_number(1.0 / 3.0), "0.333333333");
  EXPECT_EQ(json_number(1.0 / 3.0, 17), "0.33333333333333331");
  EXPECT_EQ(json_number(2.0), "2");
}
