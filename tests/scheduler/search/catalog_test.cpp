// The site catalog (catalog.hpp): where it is, an entry's visibility following its archive, and every entry that
// is not what it claims (damaged, oversized, a link, naming another owner's archive) refused with the reason.
#include "kforge/scheduler/search/catalog.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kforge::scheduler {
namespace {
namespace fs = std::filesystem;

class Catalog : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("kforge-catalog-test-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "catalog");
    unsetenv("KFORGE_CATALOG");
  }
  void TearDown() override { fs::remove_all(root_); }

  // A campaign folder whose campaign.h5 has `mode` (the catalog only looks at the index's mode and owner).
  fs::path archive(const std::string& name, mode_t mode) {
    const fs::path dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream(dir / "campaign.h5") << "not read here";
    chmod((dir / "campaign.h5").c_str(), mode);
    return dir;
  }

  CatalogEntry entry_for(const fs::path& dir, const std::string& family = "gemm") {
    CatalogEntry e;
    e.campaign = dir.filename().string();
    e.family = family;
    e.parameters = {"MC", "NC"};
    e.fingerprint = space_fingerprint(family, e.parameters);
    e.targets = {"host"};
    e.gpu_models = {{"host", "none here"}};
    e.archive = dir;
    return e;
  }

  fs::path catalog() const { return root_ / "catalog"; }
  fs::path root_;
};

TEST_F(Catalog, TheEnvironmentWinsOverTheSiteAndNoneTurnsItOff) {
  EXPECT_EQ(catalog_folder("/srv/site-catalog"), fs::path("/srv/site-catalog"));
  EXPECT_FALSE(catalog_folder("none"));
  setenv("KFORGE_CATALOG", "/tmp/mine", 1);
  EXPECT_EQ(catalog_folder("/srv/site-catalog"), fs::path("/tmp/mine"));
  setenv("KFORGE_CATALOG", "none", 1);
  EXPECT_FALSE(catalog_folder("/srv/site-catalog"));
  unsetenv("KFORGE_CATALOG");
  setenv("XDG_STATE_HOME", "/tmp/state", 1);
  EXPECT_EQ(catalog_folder(""), fs::path("/tmp/state/kforge/catalog"));
  unsetenv("XDG_STATE_HOME");
}

TEST_F(Catalog, TheFingerprintIsTheFamilyAndTheParameterNamesInAnyOrder) {
  EXPECT_EQ(space_fingerprint("gemm", {"MC", "NC"}), space_fingerprint("gemm", {"NC", "MC"}));
  EXPECT_NE(space_fingerprint("gemm", {"MC", "NC"}), space_fingerprint("conv", {"MC", "NC"}));
  EXPECT_NE(space_fingerprint("gemm", {"MC", "NC"}), space_fingerprint("gemm", {"MC", "NC", "KC"}));
}

TEST_F(Catalog, AnEntryIsAsVisibleAsItsArchive) {
  struct Case {
    mode_t archive;
    mode_t entry;
    const char* visibility;
  };
  for (const Case c : {Case{0600, 0600, "private"}, Case{0640, 0640, "group"}, Case{0644, 0644, "shared"}}) {
    const fs::path dir = archive("a" + std::to_string(c.archive), c.archive);
    const CatalogEntry written = register_campaign(catalog(), entry_for(dir));
    struct stat st {};
    ASSERT_EQ(stat(written.file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, c.entry) << c.visibility;
    EXPECT_EQ(written.visibility, c.visibility);
    EXPECT_EQ(written.owner, getuid());
  }
}

TEST_F(Catalog, RunningAgainReplacesTheEntryAndListingFiltersByFingerprint) {
  const fs::path a = archive("a", 0644), b = archive("b", 0644);
  register_campaign(catalog(), entry_for(a));
  register_campaign(catalog(), entry_for(a));  // the same campaign again: still one entry
  register_campaign(catalog(), entry_for(b, "convolution"));
  const CatalogListing gemm = list_catalog(catalog(), space_fingerprint("gemm", {"MC", "NC"}));
  ASSERT_EQ(gemm.entries.size(), 1u);
  EXPECT_EQ(gemm.entries[0].archive, fs::weakly_canonical(a));
  EXPECT_EQ(gemm.entries[0].targets, std::vector<std::string>{"host"});
  EXPECT_EQ(gemm.entries[0].gpu_models.at("host"), "none here");
  EXPECT_EQ(list_catalog(catalog()).entries.size(), 2u);
  EXPECT_TRUE(gemm.skipped.empty());
}

TEST_F(Catalog, DamagedOversizedAndLinkedEntriesAreSkippedWithTheReason) {
  std::ofstream(catalog() / "broken.json") << "{\"schema\": 1, \"campaign\": ";
  std::ofstream(catalog() / "relative.json")
      << R"({"schema":1,"campaign":"c","family":"gemm","fingerprint":"f","parameters":[],"targets":[],"gpu_models":{},)"
      << R"("archive":"runs/c","visibility":"shared","finished":"now"})";
  std::ofstream(catalog() / "huge.json") << std::string(65 * 1024, ' ');
  fs::create_symlink("/etc/passwd", catalog() / "link.json");
  const CatalogListing listing = list_catalog(catalog());
  EXPECT_TRUE(listing.entries.empty());
  ASSERT_EQ(listing.skipped.size(), 4u);
  const auto has = [&](const std::string& text) {
    for (const auto& s : listing.skipped)
      if (s.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("broken.json: not a catalog entry"));
  EXPECT_TRUE(has("relative.json: not a catalog entry: archive is not an absolute path"));
  EXPECT_TRUE(has("huge.json: larger than 65536 bytes"));
  EXPECT_TRUE(has("link.json: cannot open: Too many levels of symbolic links"));
}

TEST_F(Catalog, AnArchiveThatIsGoneOrSomeoneElsesIsNotUsed) {
  const fs::path dir = archive("gone", 0644);
  CatalogEntry e = register_campaign(catalog(), entry_for(dir));
  fs::remove(dir / "campaign.h5");
  EXPECT_NE(read_catalog_prior(e).unusable.find("cannot read " + (dir / "campaign.h5").string()), std::string::npos);
  const fs::path other = archive("other", 0644);
  e = register_campaign(catalog(), entry_for(other));
  if (getuid() != 0) GTEST_SKIP() << "an archive of another owner needs root to chown (the suite runs as root)";
  ASSERT_EQ(chown((other / "campaign.h5").c_str(), 54321, 54321), 0);
  const std::string why = read_catalog_prior(e).unusable;
  EXPECT_NE(why.find("belongs to 54321, the entry to"), std::string::npos) << why;
}

}  // namespace
}  // namespace kforge::scheduler
