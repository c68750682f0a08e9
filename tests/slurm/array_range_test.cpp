#include "kforge/slurm/array_range.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kforge::slurm {
namespace {

using Indices = std::vector<std::uint32_t>;

TEST(ArrayRange, RangeWithThrottle) {
  const ArrayRange range = parse_array_range("0-3%2");
  EXPECT_EQ(range.indices, (Indices{0, 1, 2, 3}));
  ASSERT_TRUE(range.throttle.has_value());
  EXPECT_EQ(*range.throttle, 2U);
}

TEST(ArrayRange, ListsStepsAndOverlapsAreSortedAndUnique) {
  const ArrayRange range = parse_array_range("7,1-5:2,3");
  EXPECT_EQ(range.indices, (Indices{1, 3, 5, 7}));
  EXPECT_FALSE(range.throttle.has_value());
}

TEST(ArrayRange, MalformedExpressionsAreRejected) {
  for (const char* bad : {"", "%2", "a-3", "5-2", "1,,2", "1,", "0-4:0", "0-3%", "0-4294967295"}) {
    EXPECT_THROW(parse_array_range(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace kforge::slurm
