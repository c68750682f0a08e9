#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "detail/json_writer.hpp"

using kforge::scheduler::detail::JsonWriter;

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
