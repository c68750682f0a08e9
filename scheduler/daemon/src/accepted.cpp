#include "kforge/scheduler/daemon/accepted.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/daemon/user_file.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

void AcceptedCampaigns::record(const CampaignRef& c, const std::string& campaign_text) const {
  // Owner and name are valid names (no '/', no leading '.'): these paths stay inside the daemon's own folder.
  const fs::path user = dir_ / c.owner;
  if (::mkdir(user.c_str(), 0700) != 0 && errno != EEXIST) {
    throw std::runtime_error(user.string() + ": cannot create: " + std::strerror(errno));
  }
  jobs::write_text_file_atomically(user / c.name, jobs::sha256_hex(campaign_text) + "\n");
}

std::string AcceptedCampaigns::digest(const CampaignRef& c) const {
  std::optional<std::string> text;
  try {
    text = read_user_file_if_present(dir_ / c.owner / c.name, 256);
  } catch (const UserFileError&) {
    return "";  // nothing usable recorded: not accepted
  }
  if (!text) return "";
  while (!text->empty() && text->back() == '\n') text->pop_back();
  return *text;
}

}  // namespace kforge::scheduler::daemon
