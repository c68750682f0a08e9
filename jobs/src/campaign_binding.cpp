// The campaign id of a folder and the reader of its generation files that checks them against it and against
// their seals (kforge/jobs/archive_binding.hpp).
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "detail/durable_file.hpp"
#include "kforge/jobs/archive_binding.hpp"

namespace kforge::jobs {

std::string read_campaign_id(const std::filesystem::path& dir) {
  const auto path = dir / kCampaignIdFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "";
  std::ifstream in(path);
  std::string id;
  std::getline(in, id);
  static const std::regex kId("[0-9a-f]{32}");
  if (!std::regex_match(id, kId))
    throw std::runtime_error(path.string() + ": does not hold a campaign id (32 lower-case hex digits)");
  return id;
}

std::string ensure_campaign_id(const std::filesystem::path& dir) {
  if (std::string id = read_campaign_id(dir); !id.empty()) return id;
  std::random_device entropy;  // the kernel's random source: two campaigns never share an id by chance
  std::ostringstream id;
  for (int i = 0; i < 4; ++i) {
    char word[9];
    std::snprintf(word, sizeof word, "%08x", static_cast<unsigned>(entropy()));
    id << word;
  }
  detail::write_text_atomically(dir / kCampaignIdFile, id.str() + "\n");
  return id.str();
}

CampaignBinding read_campaign_binding(const std::filesystem::path& dir) {
  CampaignBinding b;
  b.campaign_id = read_campaign_id(dir);
  b.seals = read_seals(dir);
  return b;
}

Generation read_campaign_generation(const std::filesystem::path& dir, const CampaignBinding& binding, int g,
                                    int count) {
  const auto path = dir / generation_file_name(g);
  FileExpectation expected{binding.campaign_id, g, -1, ""};
  if (auto seal = binding.seals.find(g); seal != binding.seals.end()) {
    expected.sha256 = seal->second.sha256;
  } else if (!binding.seals.empty() && g != count - 1) {
    throw std::runtime_error(path.string() + ": reading generation file: has no seal in campaign.h5, although " +
                             "later generations do: not written by this campaign's run");
  }
  return read_generation(path, expected);
}

}  // namespace kforge::jobs
