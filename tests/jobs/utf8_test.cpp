// Text that YAML cannot hold unchanged: what is_valid_utf8 accepts, and the manifest writer refusing it
// (fuzz_task_manifest found a source whose bytes came back as U+FFFD after a write and a read).
#include <gtest/gtest.h>

#include <filesystem>

#include "archive_samples.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/utf8.hpp"

namespace {

using kforge::jobs::is_valid_utf8;

TEST(Utf8, WellFormedTextOfEveryLengthIsValid) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("int f() { return 1; }\n\t"));
  EXPECT_TRUE(is_valid_utf8("\xC3\xA9"));          // é
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC"));      // €
  EXPECT_TRUE(is_valid_utf8("\xF0\x9F\x98\x80"));  // U+1F600
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF, the last code point
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));
}

TEST(Utf8, MalformedSequencesAreInvalid) {
  EXPECT_FALSE(is_valid_utf8("\xCA\xD0 edited"));   // a lead byte followed by another lead (the fuzzer's input)
  EXPECT_FALSE(is_valid_utf8("\x80"));              // a continuation byte alone
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong, three bytes
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // a UTF-16 surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xF0\x9F\x98"));      // truncated at the end
  EXPECT_FALSE(is_valid_utf8("\xFF"));
}

TEST(Utf8, ManifestWithANonUtf8SourceIsRefusedNamingTheFieldAndNothingIsWritten) {
  kforge::jobs::testing::ScratchDir dir("utf8");
  kforge::jobs::TaskManifest m;
  m.campaign = "c";
  m.candidates.resize(2);
  m.candidates[1].source = "\xCA\xD0 edited by an agent\n";
  const auto path = dir.path() / "0000.yaml";
  try {
    kforge::jobs::write_manifest(path, m);
    FAIL() << "written";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ": cannot write task manifest: candidates[1].source is not "
                                                         "valid UTF-8 text"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  m.candidates[1].source = "\xC3\xA9t\xC3\xA9\n";  // valid UTF-8 is written and reads back unchanged
  kforge::jobs::write_manifest(path, m);
  EXPECT_EQ(kforge::jobs::read_manifest(path), m);
}

}  // namespace
