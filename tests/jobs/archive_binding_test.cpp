// Files that are whole HDF5 but not what their place says (issue 11, section 3): another generation's file, another
// campaign's, an altered attribute, a changed chunk, a file changed after it was sealed. Each reader refuses them
// with the file named and what is wrong; kforge verify (verify_archive) lists them.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <fstream>

#include "archive_samples.hpp"
#include "kforge/jobs/archive_binding.hpp"
#include "kforge/jobs/archive_verify.hpp"

using namespace kforge::jobs;
using kforge::jobs::testing::ScratchDir;

namespace {

const std::string kIdA = "0123456789abcdef0123456789abcdef";
const std::string kIdB = "fedcba9876543210fedcba9876543210";

Generation generation_of(const std::string& campaign_id, int g, int records) {
  Generation gen = kforge::jobs::testing::sample_generation(g, records);
  gen.provenance.campaign_id = campaign_id;
  return gen;
}

void write_campaign_id(const std::filesystem::path& dir, const std::string& id) {
  std::ofstream(dir / kCampaignIdFile) << id << "\n";
}

template <class Read>
void expect_refused(const std::filesystem::path& path, const std::string& reason, Read read) {
  try {
    read();
    ADD_FAILURE() << "accepted " << path;
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path.string() + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(reason), std::string::npos) << what;
  }
}

void set_int_attr(const std::filesystem::path& file, const char* name, long long value) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  ASSERT_GE(H5Awrite(a, H5T_NATIVE_LLONG, &value), 0);
  H5Aclose(a);
  H5Fclose(f);
}

// File offset of the first stored chunk of a dataset.
haddr_t first_chunk_address(const std::filesystem::path& file, const char* dataset) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
  hsize_t offset[1];
  unsigned mask = 0;
  haddr_t addr = HADDR_UNDEF;
  hsize_t size = 0;
  hid_t space = H5Dget_space(d);
  H5Dget_chunk_info(d, space, 0, offset, &mask, &addr, &size);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return addr;
}

void flip_byte(const std::filesystem::path& file, std::uint64_t at) {
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  io.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  io.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  io.seekp(static_cast<std::streamoff>(at));
  io.write(&c, 1);
}

}  // namespace

TEST(JobsArchiveBinding, GenerationFileInAnotherGenerationsPlaceIsRefused) {
  ScratchDir dir("binding");
  write_generation(dir.path() / "gen-0000.h5", generation_of(kIdA, 0, 2));
  std::filesystem::copy_file(dir.path() / "gen-0000.h5", dir.path() / "gen-0001.h5");
  const auto path = dir.path() / "gen-0001.h5";
  expect_refused(path, "its 'generation' attribute says 0 but its name says 1", [&] { read_generation(path); });
  expect_refused(path, "its 'generation' attribute says 0 but its name says 1", [&] {
    read_generation(path, FileExpectation{kIdA, 1, -1, ""});
  });
}

TEST(JobsArchiveBinding, FileOfAnotherCampaignIsRefused) {
  ScratchDir dir("binding");
  const auto path = dir.path() / "gen-0000.h5";
  write_generation(path, generation_of(kIdB, 0, 2));
  EXPECT_EQ(read_generation(path).provenance.campaign_id, kIdB);  // on its own it is whole
  expect_refused(path, "belongs to another campaign (campaign id " + kIdB + ", this campaign's is " + kIdA + ")", [&] {
    read_generation(path, FileExpectation{kIdA, 0, -1, ""});
  });
}

TEST(JobsArchiveBinding, ChangedGenerationAttributeBreaksTheContentDigest) {
  ScratchDir dir("binding");
  const auto path = dir.path() / "generation.h5";  // a name that says nothing: only the digest can tell
  write_generation(path, generation_of(kIdA, 1, 2));
  set_int_attr(path, "generation", 0);
  expect_refused(path, "content digest mismatch", [&] { read_generation(path); });
}

TEST(JobsArchiveBinding, ChangedChunkFailsItsFletcher32Checksum) {
  ScratchDir dir("binding");
  const auto path = dir.path() / "gen-0000.h5";
  write_generation(path, generation_of(kIdA, 0, 3));
  const haddr_t chunk = first_chunk_address(path, "samples");
  ASSERT_NE(chunk, HADDR_UNDEF);
  flip_byte(path, chunk + 2);
  expect_refused(path, "Fletcher32", [&] { read_generation(path); });
}

TEST(JobsArchiveBinding, ShardOfAnotherTaskOrGenerationIsRefusedAndGetsItsFoldersCampaignId) {
  ScratchDir dir("binding");
  write_campaign_id(dir.path(), kIdA);
  const auto shards = dir.path() / "g0002" / "shards";
  std::filesystem::create_directories(shards);
  Shard s = kforge::jobs::testing::sample_shard(2);  // generation 0, task 0 in the sample
  s.generation = 2;
  s.task = 1;
  write_shard(shards / "0001.h5", s);
  EXPECT_EQ(read_shard(shards / "0001.h5", FileExpectation{kIdA, 2, 1, ""}).provenance.campaign_id, kIdA);
  std::filesystem::copy_file(shards / "0001.h5", shards / "0000.h5");
  expect_refused(shards / "0000.h5", "its 'task' attribute says 1 but its name says 0",
                 [&] { read_shard(shards / "0000.h5"); });
  expect_refused(shards / "0001.h5", "belongs to generation 2, expected generation 3", [&] {
    read_shard(shards / "0001.h5", FileExpectation{kIdA, 3, 1, ""});
  });
}

TEST(JobsArchiveBinding, SealKeptAcrossRebuildsCatchesAFileRewrittenLater) {
  ScratchDir dir("binding");
  write_campaign_id(dir.path(), kIdA);
  Provenance p = kforge::jobs::testing::sample_provenance();
  p.campaign_id = kIdA;
  write_generation(dir.path() / "gen-0000.h5", generation_of(kIdA, 0, 2));
  rebuild_campaign_index(dir.path(), p);
  const auto seals = read_seals(dir.path());
  ASSERT_EQ(seals.size(), 1u);
  EXPECT_EQ(seals.at(0).file, "gen-0000.h5");
  EXPECT_EQ(read_campaign_generation(dir.path(), read_campaign_binding(dir.path()), 0, 1).records.size(), 2u);

  // A whole, self-consistent file of this campaign written in its place afterwards: only the seal can tell.
  std::filesystem::remove(dir.path() / "gen-0000.h5");
  Generation other = generation_of(kIdA, 0, 2);
  other.provenance.host = "elsewhere";
  write_generation(dir.path() / "gen-0000.h5", other);
  rebuild_campaign_index(dir.path(), p);  // must not seal the new file
  const auto path = dir.path() / "gen-0000.h5";
  expect_refused(path, "differs from its seal in campaign.h5",
                 [&] { read_campaign_generation(dir.path(), read_campaign_binding(dir.path()), 0, 1); });
  const ArchiveCheck check = verify_archive(dir.path());
  ASSERT_EQ(check.problems.size(), 1u);
  EXPECT_EQ(check.problems[0].file, path);
}

TEST(JobsArchiveBinding, VerifyFindsNothingInAWholeArchiveAndNamesEachBadFile) {
  ScratchDir dir("binding");
  write_campaign_id(dir.path(), kIdA);
  Provenance p = kforge::jobs::testing::sample_provenance();
  p.campaign_id = kIdA;
  write_generation(dir.path() / "gen-0000.h5", generation_of(kIdA, 0, 2));
  write_generation(dir.path() / "gen-0001.h5", generation_of(kIdA, 1, 3));
  rebuild_campaign_index(dir.path(), p);
  ArchiveCheck check = verify_archive(dir.path());
  EXPECT_TRUE(check.problems.empty()) << check.problems.front().what;
  EXPECT_EQ(check.generation_files, 2);
  EXPECT_EQ(check.seals, 2);

  std::filesystem::create_directories(dir.path() / "g0001" / "shards");
  std::ofstream(dir.path() / "g0001" / "shards" / "0000.h5") << "truncated";
  std::filesystem::remove(dir.path() / "gen-0000.h5");
  check = verify_archive(dir.path());
  ASSERT_EQ(check.problems.size(), 3u);  // gen-0000 missing (twice: a gap, and sealed) and the shard
  EXPECT_EQ(check.problems[0].file, dir.path() / "gen-0000.h5");
  EXPECT_EQ(check.problems[2].file, dir.path() / "g0001" / "shards" / "0000.h5");
  EXPECT_NE(check.problems[2].what.find("not an HDF5 file"), std::string::npos) << check.problems[2].what;
}

TEST(JobsArchiveBinding, CampaignIdIsCreatedOnceAndMustLookLikeOne) {
  ScratchDir dir("binding");
  EXPECT_EQ(read_campaign_id(dir.path()), "");
  const std::string id = ensure_campaign_id(dir.path());
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(ensure_campaign_id(dir.path()), id);
  write_campaign_id(dir.path(), "not an id");
  EXPECT_THROW(read_campaign_id(dir.path()), std::runtime_error);
}

namespace {

// Makes `file` look as a schema-1 writer left it: schema_version 1, no content_sha256, no campaign_id, no /seals.
void mark_schema_1(const std::filesystem::path& file) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(H5Adelete(f, "content_sha256"), 0);
  ASSERT_GE(H5Adelete(f, "campaign_id"), 0);
  if (H5Lexists(f, "seals", H5P_DEFAULT) > 0) {
    ASSERT_GE(H5Ldelete(f, "seals", H5P_DEFAULT), 0);
  }
  hid_t attr = H5Aopen(f, "schema_version", H5P_DEFAULT);
  const long long one = 1;
  ASSERT_GE(H5Awrite(attr, H5T_NATIVE_LLONG, &one), 0);
  H5Aclose(attr);
  H5Fclose(f);
}

}  // namespace

TEST(JobsArchiveBinding, Schema1CampaignIsReadAndVerifiedWithNotesOnWhatItCannotProve) {
  ScratchDir dir("binding");
  write_generation(dir.path() / "gen-0000.h5", generation_of("", 0, 2));
  rebuild_campaign_index(dir.path(), kforge::jobs::testing::sample_provenance());
  mark_schema_1(dir.path() / "gen-0000.h5");
  mark_schema_1(dir.path() / "campaign.h5");
  const CampaignBinding binding = read_campaign_binding(dir.path());
  EXPECT_TRUE(binding.seals.empty());
  EXPECT_EQ(read_campaign_generation(dir.path(), binding, 0, 1).records.size(), 2u);
  const ArchiveCheck check = verify_archive(dir.path());
  EXPECT_TRUE(check.problems.empty()) << check.problems.front().file << ": " << check.problems.front().what;
  ASSERT_EQ(check.notes.size(), 2u);  // no campaign-id; gen-0000.h5 carries no digest and no campaign id
  EXPECT_NE(check.notes[1].find("schema_version 1"), std::string::npos) << check.notes[1];

  // Resumed by this kforge: the folder gets an id, schema-1 files still read, and the next rebuild seals them.
  const std::string id = ensure_campaign_id(dir.path());
  EXPECT_EQ(read_campaign_generation(dir.path(), read_campaign_binding(dir.path()), 0, 1).records.size(), 2u);
  Provenance p = kforge::jobs::testing::sample_provenance();
  p.campaign_id = id;
  write_generation(dir.path() / "gen-0001.h5", generation_of(id, 1, 1));
  rebuild_campaign_index(dir.path(), p);
  EXPECT_EQ(read_seals(dir.path()).size(), 2u);
  EXPECT_TRUE(verify_archive(dir.path()).problems.empty());
}

TEST(JobsArchiveBinding, VerifyReportsAMissingCampaignIdWhenTheFilesCarryOne) {
  ScratchDir dir("binding");
  Provenance p = kforge::jobs::testing::sample_provenance();
  p.campaign_id = kIdA;
  write_generation(dir.path() / "gen-0000.h5", generation_of(kIdA, 0, 1));
  rebuild_campaign_index(dir.path(), p);  // no DIR/campaign-id: deleted, or never there
  const ArchiveCheck check = verify_archive(dir.path());
  ASSERT_EQ(check.problems.size(), 1u);
  EXPECT_EQ(check.problems[0].file, dir.path() / kCampaignIdFile);
  EXPECT_NE(check.problems[0].what.find("carries campaign id " + kIdA), std::string::npos) << check.problems[0].what;
  EXPECT_TRUE(check.notes.empty()) << check.notes.front();
}
