// Is this file what its name and its reader say it is? (detail/archive_file.hpp, check_place). A generation file
// swapped for another generation's, a shard of another task, a file copied from another campaign and a file
// changed after its generation was sealed are refused here, with what was expected and what was found.
#include <regex>
#include <stdexcept>
#include <string>

#include "detail/archive_file.hpp"
#include "detail/sha256.hpp"

namespace kforge::jobs::detail {
namespace {

// -1 when the name does not say.
struct NamedPlace {
  int generation = -1;
  int task = -1;
};

NamedPlace place_from_name(const std::filesystem::path& given, const std::string& kind) {
  const auto path = std::filesystem::absolute(given).lexically_normal();  // DIR/g0000/tasks/../shards/0000.h5
  static const std::regex kGeneration(R"(gen-(\d+)\.h5)");
  static const std::regex kShardDir(R"(g(\d+))");
  static const std::regex kShard(R"((\d+)\.h5)");
  NamedPlace place;
  std::smatch m;
  const std::string name = path.filename().string();
  if (kind == "generation" && std::regex_match(name, m, kGeneration)) place.generation = std::stoi(m[1]);
  if (kind == "shard" && std::regex_match(name, m, kShard) && path.parent_path().filename() == "shards") {
    place.task = std::stoi(m[1]);
    const std::string dir = path.parent_path().parent_path().filename().string();
    if (std::regex_match(dir, m, kShardDir)) place.generation = std::stoi(m[1]);
  }
  return place;
}

void check_number(hid_t file, const char* attr, int named, int expected) {
  const long long found = h5::read_int_attr(file, attr);
  if (named >= 0 && found != named)
    throw std::runtime_error("its '" + std::string(attr) + "' attribute says " + std::to_string(found) +
                             " but its name says " + std::to_string(named) + ": a file of another " + attr +
                             " put in this one's place, or an altered attribute");
  if (expected >= 0 && found != expected)
    throw std::runtime_error("belongs to " + std::string(attr) + " " + std::to_string(found) + ", expected " + attr +
                             " " + std::to_string(expected));
}

void check_campaign_id(hid_t file, const std::string& expected) {
  if (expected.empty() || h5::read_int_attr(file, "schema_version") < 2) return;  // schema 1 cannot prove it
  const std::string found = h5::has_attr(file, "campaign_id") ? h5::read_string_attr(file, "campaign_id") : "";
  if (found.empty())
    throw std::runtime_error("carries no campaign id, but this campaign's is " + expected +
                             ": not written by this campaign");
  if (found != expected)
    throw std::runtime_error("belongs to another campaign (campaign id " + found + ", this campaign's is " + expected +
                             ")");
}

}  // namespace

void check_place(hid_t file, const std::filesystem::path& path, const std::string& kind,
                 const FileExpectation& expected) {
  const NamedPlace named = place_from_name(path, kind);
  if (kind == "shard" || kind == "generation") check_number(file, "generation", named.generation, expected.generation);
  if (kind == "shard") check_number(file, "task", named.task, expected.task);
  check_campaign_id(file, expected.campaign_id);
}

void check_seal(const std::filesystem::path& path, const FileExpectation& expected) {
  if (expected.sha256.empty()) return;
  const std::string found = file_sha256_hex(path);
  if (found == expected.sha256) return;
  std::string why = "its SHA-256 (" + found.substr(0, 16) + "...) differs from its seal in campaign.h5 (" +
                    expected.sha256.substr(0, 16) + "...): changed after the generation was sealed";
  // Say what changed where the root attributes tell (read from checksummed headers only, no table is parsed).
  try {
    h5::silence_default_error_printer();
    if (H5Fis_hdf5(path.c_str()) > 0) {
      h5::File file(KFORGE_H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)));
      check_place(file, path, "generation", FileExpectation{expected.campaign_id, expected.generation, -1, ""});
    }
  } catch (const std::exception& e) {
    why += ": " + std::string(e.what());
  }
  throw std::runtime_error(why);
}

}  // namespace kforge::jobs::detail
