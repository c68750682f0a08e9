// campaign.h5: one file that opens the whole campaign in h5py or HDFView, through external links to the
// generation files. It holds no data of its own, so it is rebuilt (atomically) whenever a generation lands.
#include <algorithm>
#include <regex>
#include <utility>
#include <vector>

#include "detail/archive_file.hpp"
#include "detail/durable_file.hpp"

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

void write_index(hid_t file, const Provenance& p, const std::vector<std::pair<std::string, std::string>>& links) {
  detail::write_provenance(file, p, "campaign");
  h5::write_attr(file, "generations", static_cast<long long>(links.size()));
  h5::Group group(KFORGE_H5_CHECK(H5Gcreate2(file, "generations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  for (const auto& [link, target_file] : links)  // relative name: the campaign folder can be moved or copied
    KFORGE_H5_CHECK(H5Lcreate_external(target_file.c_str(), "/", group, link.c_str(), H5P_DEFAULT, H5P_DEFAULT));
}

}  // namespace

void rebuild_campaign_index(const std::filesystem::path& dir, const Provenance& p) {
  auto path = dir / "campaign.h5";
  detail::with_file_context(path, "rebuilding campaign index", [&] {
    auto links = generation_files(dir);
    auto tmp = detail::temp_path_for(path);
    detail::TempFileGuard guard(tmp);
    h5::File file = detail::create_archive_file(tmp);
    write_index(file, p, links);
    detail::flush_and_close(file);
    detail::publish_replacing(tmp, path);
    guard.release();
  });
}

}  // namespace kforge::jobs
