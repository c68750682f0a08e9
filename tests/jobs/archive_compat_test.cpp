// Files written before a /records member existed stay readable: the member reads back as its default.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstring>
#include <vector>

#include "archive_samples.hpp"

using namespace kforge::jobs;
using kforge::jobs::testing::ScratchDir;

namespace {

// Rewrites /records of `file` without the compound member `dropped`, as a writer that predates it would have.
void drop_record_member(const std::filesystem::path& file, const char* dropped) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, "records", H5P_DEFAULT);
  hid_t file_type = H5Dget_type(d);
  hid_t mem = H5Tget_native_type(file_type, H5T_DIR_DEFAULT);
  hid_t space = H5Dget_space(d);
  const hsize_t rows = static_cast<hsize_t>(H5Sget_simple_extent_npoints(space));
  std::vector<unsigned char> buffer(rows * H5Tget_size(mem));
  ASSERT_GE(H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), 0);
  hid_t older = H5Tcreate(H5T_COMPOUND, H5Tget_size(mem));
  for (int i = 0; i < H5Tget_nmembers(mem); ++i) {
    char* name = H5Tget_member_name(mem, static_cast<unsigned>(i));
    hid_t member = H5Tget_member_type(mem, static_cast<unsigned>(i));
    if (std::strcmp(name, dropped) != 0)
      H5Tinsert(older, name, H5Tget_member_offset(mem, static_cast<unsigned>(i)), member);
    H5Tclose(member);
    H5free_memory(name);
  }
  ASSERT_EQ(H5Tget_nmembers(older), H5Tget_nmembers(mem) - 1) << dropped << " is not a member of /records";
  H5Dclose(d);
  ASSERT_GE(H5Ldelete(f, "records", H5P_DEFAULT), 0);
  hid_t packed = H5Tcopy(older);
  H5Tpack(packed);
  hid_t fixed = H5Screate_simple(1, &rows, nullptr);  // the original is chunked with unlimited size
  hid_t rewritten = H5Dcreate2(f, "records", packed, fixed, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Sclose(fixed);
  ASSERT_GE(rewritten, 0);
  ASSERT_GE(H5Dwrite(rewritten, older, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), 0);
  H5Dvlen_reclaim(mem, space, H5P_DEFAULT, buffer.data());
  H5Dclose(rewritten);
  H5Tclose(packed);
  H5Tclose(older);
  H5Sclose(space);
  H5Tclose(mem);
  H5Tclose(file_type);
  H5Fclose(f);
}

// Makes `file` look as a schema-1 writer left it: schema_version 1, neither content_sha256 nor campaign_id.
void mark_schema_1(const std::filesystem::path& file) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(H5Adelete(f, "content_sha256"), 0);
  ASSERT_GE(H5Adelete(f, "campaign_id"), 0);
  hid_t attr = H5Aopen(f, "schema_version", H5P_DEFAULT);
  const long long one = 1;
  ASSERT_GE(H5Awrite(attr, H5T_NATIVE_LLONG, &one), 0);
  H5Aclose(attr);
  H5Fclose(f);
}

}  // namespace

TEST(JobsArchiveCompat, ShardWithoutTheInterquartileSpreadGetsItFromItsSamples) {
  ScratchDir dir("archive-compat-iqr");
  Shard s = kforge::jobs::testing::sample_shard(4);
  for (auto& r : s.records) {
    r.samples_ms = {1.0, 1.1, 1.2, 5.0};  // one outlier
    r.time_spread_iqr = 123.0;            // what the file held: gone with the member below
  }
  const auto path = dir.path() / "0000.h5";
  write_shard(path, s);
  drop_record_member(path, "time_spread_iqr");
  mark_schema_1(path);  // the rewrite changed the content its digest and seal were of: read it as unsealed
  std::filesystem::remove(path.string() + ".seal");
  const Shard back = read_shard(path);
  ASSERT_EQ(back.records.size(), s.records.size());
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    EXPECT_NEAR(back.records[i].time_spread_iqr, (2.15 - 1.075) / 1.15, 1e-12) << "record " << i;
    EvalRecord want = s.records[i];
    want.time_spread_iqr = back.records[i].time_spread_iqr;
    EXPECT_EQ(back.records[i], want) << "record " << i;
  }
}

TEST(JobsArchiveCompat, ShardWithoutTimingNoisyReadsBackNotNoisyWithEveryOtherField) {
  ScratchDir dir("archive-compat");
  Shard s = kforge::jobs::testing::sample_shard(6);
  bool any_noisy = false;
  for (const auto& r : s.records) any_noisy = any_noisy || r.timing_noisy;
  ASSERT_TRUE(any_noisy) << "the sample data must exercise the flag";
  const auto path = dir.path() / "0000.h5";
  write_shard(path, s);
  drop_record_member(path, "timing_noisy");
  mark_schema_1(path);                               // a file without the member was written by a schema-1 writer
  std::filesystem::remove(path.string() + ".seal");  // ... which wrote no seal
  const Shard back = read_shard(path);
  ASSERT_EQ(back.records.size(), s.records.size());
  for (std::size_t i = 0; i < s.records.size(); ++i) {
    EXPECT_FALSE(back.records[i].timing_noisy) << "record " << i;
    EvalRecord want = s.records[i];
    want.timing_noisy = false;
    EXPECT_EQ(back.records[i], want) << "record " << i;
  }
}
