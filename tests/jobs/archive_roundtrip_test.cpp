// Shard and generation files: every field written is read back unchanged, empty tables included.
#include <gtest/gtest.h>

#include <hdf5.h>
#include <fstream>

#include "archive_samples.hpp"

using namespace kforge::jobs;
using kforge::jobs::testing::ScratchDir;

namespace {

void expect_same_records(const std::vector<EvalRecord>& got, const std::vector<EvalRecord>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], want[i]) << "record " << i;
    // operator== is the contract; spot-check the fields with special encodings so a failure says which.
    EXPECT_EQ(got[i].parents, want[i].parents) << "record " << i;
    EXPECT_EQ(got[i].samples_ms.size(), want[i].samples_ms.size()) << "record " << i;
    EXPECT_EQ(got[i].sample_count, want[i].sample_count) << "record " << i;
    EXPECT_EQ(got[i].status, want[i].status) << "record " << i;
    EXPECT_EQ(got[i].evidence, want[i].evidence) << "record " << i;
  }
}

std::string units_of(const std::filesystem::path& file, const char* dataset, const char* attribute) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  hid_t a = H5Aopen(d, attribute, H5P_DEFAULT);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  char* text = nullptr;
  std::string value = H5Aread(a, t, &text) >= 0 && text ? text : "<unreadable>";
  H5free_memory(text);
  H5Tclose(t);
  H5Aclose(a);
  H5Dclose(d);
  H5Fclose(f);
  return value;
}

}  // namespace

TEST(JobsArchive, ShardRoundTripsEveryField) {
  ScratchDir dir("archive");
  Shard s = kforge::jobs::testing::sample_shard(static_cast<int>(std::size(kAllStatuses)));
  auto path = dir.path() / "0017.h5";
  write_shard(path, s);
  Shard back = read_shard(path);
  EXPECT_EQ(back.provenance, s.provenance);
  EXPECT_EQ(back.generation, s.generation);
  EXPECT_EQ(back.island, s.island);
  EXPECT_EQ(back.task, s.task);
  EXPECT_EQ(back.target, s.target);
  expect_same_records(back.records, s.records);
  EXPECT_EQ(back.baselines, s.baselines);
}

TEST(JobsArchive, GenerationRoundTripsEveryTable) {
  ScratchDir dir("archive");
  Generation g = kforge::jobs::testing::sample_generation(5, 4);
  auto path = dir.path() / generation_file_name(5);
  write_generation(path, g);
  Generation back = read_generation(path);
  EXPECT_EQ(back.provenance, g.provenance);
  EXPECT_EQ(back.generation, 5);
  expect_same_records(back.records, g.records);
  EXPECT_EQ(back.baselines, g.baselines);
  EXPECT_EQ(back.candidates, g.candidates);
  EXPECT_EQ(back.population, g.population);
  EXPECT_EQ(back.operator_weights, g.operator_weights);
  EXPECT_EQ(back.lessons, g.lessons);
  EXPECT_EQ(back.validation, g.validation);
  EXPECT_EQ(back.model_quality, g.model_quality);
  ASSERT_EQ(back.model_quality.size(), 2u);  // a real comparison: the sample is not empty
}

TEST(JobsArchive, EmptyTablesReadBackEmpty) {
  ScratchDir dir("archive");
  Shard empty_shard;
  write_shard(dir.path() / "0000.h5", empty_shard);
  Shard s = read_shard(dir.path() / "0000.h5");
  EXPECT_TRUE(s.records.empty());
  EXPECT_TRUE(s.baselines.empty());
  EXPECT_EQ(s.provenance, empty_shard.provenance);

  write_generation(dir.path() / generation_file_name(0), Generation{});
  Generation g = read_generation(dir.path() / generation_file_name(0));
  EXPECT_TRUE(g.records.empty());
  EXPECT_TRUE(g.candidates.empty());
  EXPECT_TRUE(g.population.empty());
  EXPECT_TRUE(g.baselines.empty());
  EXPECT_TRUE(g.operator_weights.empty());
  EXPECT_EQ(g.lessons, Lessons{});
  EXPECT_TRUE(g.validation.empty());
  EXPECT_TRUE(g.model_quality.empty());  // and no /search_model table is written for it
}

TEST(JobsArchive, MeasuredFieldsCarryUnits) {
  ScratchDir dir("archive");
  auto path = dir.path() / "0001.h5";
  write_shard(path, kforge::jobs::testing::sample_shard(2));
  EXPECT_EQ(units_of(path, "/records", "time_median_ms.units"), "ms");
  EXPECT_EQ(units_of(path, "/records", "speedup.units"), "1");
  EXPECT_EQ(units_of(path, "/records", "shared_bytes.units"), "bytes");
  EXPECT_EQ(units_of(path, "/records", "compile_ms.units"), "ms");
  EXPECT_EQ(units_of(path, "/records", "harness_ms.units"), "ms");
  EXPECT_EQ(units_of(path, "/records", "max_abs_error.units"), "1");
  EXPECT_EQ(units_of(path, "/samples", "units"), "ms");
  EXPECT_EQ(units_of(path, "/baselines", "time_median_ms.units"), "ms");
}

TEST(JobsArchive, WriteShardReplacesWholeAndLeavesNoTempFile) {
  ScratchDir dir("archive");
  auto path = dir.path() / "0003.h5";
  write_shard(path, kforge::jobs::testing::sample_shard(3));
  write_shard(path, kforge::jobs::testing::sample_shard(1));  // a re-run task
  EXPECT_EQ(read_shard(path).records.size(), 1u);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 2) << "the shard and its seal, nothing else";
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "0003.h5.seal"));
}

TEST(JobsArchive, ShardChangedAfterItWasWrittenFailsItsSealBeforeHdf5ReadsIt) {
  ScratchDir dir("archive");
  auto path = dir.path() / "0003.h5";
  write_shard(path, kforge::jobs::testing::sample_shard(2));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(path) / 2));
    f.put('\x5a');
  }
  try {
    (void)read_shard(path);
    FAIL() << "a changed shard was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("do not match its seal 0003.h5.seal"), std::string::npos) << e.what();
  }
}

TEST(JobsArchive, GenerationFileNameIsZeroPadded) {
  EXPECT_EQ(generation_file_name(7), "gen-0007.h5");
  EXPECT_EQ(generation_file_name(12345), "gen-12345.h5");
  EXPECT_THROW(generation_file_name(-1), std::invalid_argument);
}
