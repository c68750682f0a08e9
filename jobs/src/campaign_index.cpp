// campaign.h5: one file that opens the whole campaign in h5py or HDFView, through external links to the
// generation files. It holds no data of its own, so it is rebuilt (atomically) whenever a generation lands.
#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <utility>
#include <vector>

#include "detail/archive_file.hpp"
#include "detail/durable_file.hpp"
#include "detail/h5_table.hpp"
#include "detail/sha256.hpp"
#include "kforge/jobs/archive_binding.hpp"

namespace kforge::jobs {
namespace {

// (link name "gNNNN", file name "gen-NNNN.h5") for every finished generation file, by generation number.
std::vector<std::pair<std::string, std::string>> generation_files(const std::filesystem::path& dir) {
  static const std::regex kName(R"(gen-(\d+)\.h5)");  // full match: temp files "gen-0001.h5.tmp.42" are skipped
  std::vector<std::pair<long, std::string>> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    std::smatch m;
    if (entry.is_regular_file() && std::regex_match(name, m, kName)) found.emplace_back(std::stol(m[1]), name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::pair<std::string, std::string>> links;
  for (const auto& [number, name] : found) links.emplace_back("g" + name.substr(4, name.size() - 7), name);
  return links;
}

struct SealRow {
  std::int32_t generation;
  const char* file;
  const char* sha256;
  std::uint64_t bytes;
};

h5::Datatype seal_type() {
  h5::Datatype type(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(SealRow))));
  h5::Datatype text = h5::vlen_string_type();
  KFORGE_MEMBER(type, SealRow, generation, H5T_NATIVE_INT32);
  KFORGE_MEMBER(type, SealRow, file, text);
  KFORGE_MEMBER(type, SealRow, sha256, text);
  KFORGE_MEMBER(type, SealRow, bytes, H5T_NATIVE_UINT64);
  return type;
}

// Keeps the seal of every file sealed before (a file changed since must not be sealed anew) and seals the
// files written since the last rebuild: the generation file the runner has just written.
std::vector<GenerationSeal> seals_for(const std::filesystem::path& dir,
                                      const std::vector<std::pair<std::string, std::string>>& links) {
  const std::map<int, GenerationSeal> before = read_seals(dir);
  std::vector<GenerationSeal> seals;
  for (const auto& [link, file] : links) {
    const int g = std::stoi(link.substr(1));
    auto old = before.find(g);
    if (old != before.end() && old->second.file == file) {
      seals.push_back(old->second);
    } else {
      seals.push_back(GenerationSeal{g, file, detail::file_sha256_hex(dir / file),
                                     static_cast<std::uint64_t>(std::filesystem::file_size(dir / file))});
    }
  }
  return seals;
}

void write_seals(hid_t file, const std::vector<GenerationSeal>& seals) {
  std::vector<SealRow> rows;
  for (const auto& s : seals) rows.push_back(SealRow{s.generation, s.file.c_str(), s.sha256.c_str(), s.bytes});
  h5::Datatype mem = seal_type();
  h5::Datatype packed = h5::packed_copy(mem);
  h5::write_table(file, "seals", mem, packed, rows);
}

void write_index(hid_t file, const Provenance& p, const std::vector<std::pair<std::string, std::string>>& links,
                 const std::vector<GenerationSeal>& seals) {
  detail::write_provenance(file, p, "campaign");
  h5::write_attr(file, "generations", static_cast<long long>(links.size()));
  h5::Group group(KFORGE_H5_CHECK(H5Gcreate2(file, "generations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  for (const auto& [link, target_file] : links)  // relative name: the campaign folder can be moved or copied
    KFORGE_H5_CHECK(H5Lcreate_external(target_file.c_str(), "/", group, link.c_str(), H5P_DEFAULT, H5P_DEFAULT));
  write_seals(file, seals);
}

}  // namespace

std::map<int, GenerationSeal> read_seals(const std::filesystem::path& dir) {
  std::map<int, GenerationSeal> seals;
  const auto path = dir / "campaign.h5";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return seals;
  detail::with_file_context(path, "reading campaign index", [&] {
    h5::File file = detail::open_archive_file(path, "campaign");
    if (h5::read_int_attr(file, "schema_version") < 2) return;  // schema 1 indexes hold no seals
    const std::string campaign_id = read_campaign_id(dir);
    const std::string found = h5::read_string_attr(file, "campaign_id");
    if (!campaign_id.empty() && found != campaign_id)
      throw std::runtime_error("belongs to another campaign (campaign id " + found + ", this campaign's is " +
                               campaign_id + ")");
    h5::TableRows<SealRow> rows(file, "seals", seal_type());
    for (const auto& r : rows.rows())
      seals[r.generation] =
          GenerationSeal{r.generation, h5::text_or_empty(r.file), h5::text_or_empty(r.sha256), r.bytes};
  });
  return seals;
}

void rebuild_campaign_index(const std::filesystem::path& dir, const Provenance& p) {
  auto path = dir / "campaign.h5";
  detail::with_file_context(path, "rebuilding campaign index", [&] {
    auto links = generation_files(dir);
    auto seals = seals_for(dir, links);
    auto tmp = detail::temp_path_for(path);
    detail::TempFileGuard guard(tmp);
    h5::File file = detail::create_archive_file(tmp);
    write_index(file, p, links, seals);
    detail::flush_and_close(file);
    detail::publish_replacing(tmp, path);
    guard.release();
  });
}

}  // namespace kforge::jobs
