// Archive files that must be refused, each with an error that names the file.
#include <gtest/gtest.h>

#include <fstream>

#include "archive_samples.hpp"

using namespace kforge::jobs;
using kforge::jobs::testing::ScratchDir;

namespace {

template <class Read>
void expect_refused(const std::filesystem::path& path, const std::string& reason, Read read) {
  try {
    read(path);
    ADD_FAILURE() << "accepted " << path;
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
  }
}

void read_as_shard(const std::filesystem::path& p) { read_shard(p); }
void read_as_generation(const std::filesystem::path& p) { read_generation(p); }

}  // namespace

TEST(JobsArchiveErrors, MissingFile) {
  ScratchDir dir("errors");
  expect_refused(dir.path() / "0000.h5", "no such file", read_as_shard);
  expect_refused(dir.path() / "gen-0000.h5", "no such file", read_as_generation);
}

TEST(JobsArchiveErrors, NotAnHdf5File) {
  ScratchDir dir("errors");
  auto path = dir.path() / "0000.h5";
  std::ofstream(path) << "this is a log file, not HDF5\n";
  expect_refused(path, "not an HDF5 file", read_as_shard);
}

TEST(JobsArchiveErrors, TruncatedFile) {
  ScratchDir dir("errors");
  auto whole = dir.path() / "whole.h5";
  write_shard(whole, kforge::jobs::testing::sample_shard(3));
  auto cut = dir.path() / "0000.h5";
  std::filesystem::copy_file(whole, cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(whole) / 2);
  expect_refused(cut, "reading shard", read_as_shard);
}

TEST(JobsArchiveErrors, WrongKind) {
  ScratchDir dir("errors");
  auto gen = dir.path() / generation_file_name(1);
  write_generation(gen, kforge::jobs::testing::sample_generation(1, 1));
  expect_refused(gen, "expected a 'shard' file", read_as_shard);
  auto shard = dir.path() / "0000.h5";
  write_shard(shard, kforge::jobs::testing::sample_shard(1));
  expect_refused(shard, "expected a 'generation' file", read_as_generation);
}

TEST(JobsArchiveErrors, NewerSchemaVersion) {
  ScratchDir dir("errors");
  Shard s = kforge::jobs::testing::sample_shard(1);
  s.provenance.schema_version = kSchemaVersion + 1;
  auto path = dir.path() / "0000.h5";
  write_shard(path, s);
  expect_refused(path, "is newer than this kforge reads", read_as_shard);
}

TEST(JobsArchiveErrors, WriteGenerationRefusesToOverwrite) {
  ScratchDir dir("errors");
  auto path = dir.path() / generation_file_name(2);
  write_generation(path, kforge::jobs::testing::sample_generation(2, 3));
  Generation other = kforge::jobs::testing::sample_generation(2, 1);
  EXPECT_THROW(write_generation(path, other), std::runtime_error);
  EXPECT_EQ(read_generation(path).records.size(), 3u);  // the first file is untouched
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 1) << "the refused write left a temp file behind";
}

TEST(JobsArchiveErrors, LeftoverTempFileIsNeverReadAsShard) {
  ScratchDir dir("errors");
  auto shard = dir.path() / "0000.h5";
  auto leftover = dir.path() / "0000.h5.tmp.4242";
  write_shard(shard, kforge::jobs::testing::sample_shard(2));
  std::filesystem::rename(shard, leftover);  // as if the writer died just before its rename
  expect_refused(shard, "no such file", read_as_shard);
  expect_refused(leftover, "temporary file", read_as_shard);
}
