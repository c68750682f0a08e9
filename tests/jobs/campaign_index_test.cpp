// campaign.h5: external links to every finished generation file, resolvable with the plain C API.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include "archive_samples.hpp"

using namespace kforge::jobs;
using kforge::jobs::testing::ScratchDir;

namespace {

// Rows of a dataset reached through campaign.h5, or -1 if it cannot be opened.
long long rows_through_index(const std::filesystem::path& index, const char* dataset) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  hid_t f = H5Fopen(index.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  long long rows = -1;
  if (d >= 0) {
    hid_t space = H5Dget_space(d);
    hsize_t dims = 0;
    if (H5Sget_simple_extent_dims(space, &dims, nullptr) == 1) rows = static_cast<long long>(dims);
    H5Sclose(space);
    H5Dclose(d);
  }
  H5Fclose(f);
  return rows;
}

long long generations_attribute(const std::filesystem::path& index) {
  hid_t f = H5Fopen(index.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t a = H5Aopen(f, "generations", H5P_DEFAULT);
  long long value = -1;
  H5Aread(a, H5T_NATIVE_LLONG, &value);
  H5Aclose(a);
  H5Fclose(f);
  return value;
}

class CurrentDir {  // links must resolve against campaign.h5's folder, not the reader's cwd
 public:
  explicit CurrentDir(const std::filesystem::path& p) : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(p);
  }
  ~CurrentDir() { std::filesystem::current_path(old_); }

 private:
  std::filesystem::path old_;
};

}  // namespace

TEST(JobsCampaignIndex, ExternalLinksResolveToGenerationRecords) {
  ScratchDir dir("campaign");
  write_generation(dir.path() / generation_file_name(0), kforge::jobs::testing::sample_generation(0, 2));
  write_generation(dir.path() / generation_file_name(1), kforge::jobs::testing::sample_generation(1, 3));
  rebuild_campaign_index(dir.path(), kforge::jobs::testing::sample_provenance());
  auto index = dir.path() / "campaign.h5";
  CurrentDir elsewhere("/");
  EXPECT_EQ(rows_through_index(index, "/generations/g0000/records"), 2);
  EXPECT_EQ(rows_through_index(index, "/generations/g0001/records"), 3);
  EXPECT_EQ(rows_through_index(index, "/generations/g0001/candidates"), 3);
  EXPECT_EQ(generations_attribute(index), 2);
}

TEST(JobsCampaignIndex, RebuildPicksUpNewGenerationsAndSkipsTempFiles) {
  ScratchDir dir("campaign");
  write_generation(dir.path() / generation_file_name(0), kforge::jobs::testing::sample_generation(0, 1));
  rebuild_campaign_index(dir.path(), kforge::jobs::testing::sample_provenance());
  EXPECT_EQ(generations_attribute(dir.path() / "campaign.h5"), 1);
  write_generation(dir.path() / generation_file_name(1), kforge::jobs::testing::sample_generation(1, 4));
  write_generation(dir.path() / "gen-0002.h5.tmp.77", kforge::jobs::testing::sample_generation(2, 1));
  rebuild_campaign_index(dir.path(), kforge::jobs::testing::sample_provenance());
  auto index = dir.path() / "campaign.h5";
  EXPECT_EQ(generations_attribute(index), 2);
  EXPECT_EQ(rows_through_index(index, "/generations/g0001/records"), 4);
  EXPECT_EQ(rows_through_index(index, "/generations/g0002/records"), -1);
}

TEST(JobsCampaignIndex, EmptyCampaignHasNoLinks) {
  ScratchDir dir("campaign");
  rebuild_campaign_index(dir.path(), kforge::jobs::testing::sample_provenance());
  EXPECT_EQ(generations_attribute(dir.path() / "campaign.h5"), 0);
}
