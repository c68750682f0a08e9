// The site catalog's folder and entries (catalog.hpp). Entries are written with open(O_EXCL) + fchmod + rename
// so that their mode is exact from the first byte, and read with O_NOFOLLOW and a size cap: another user may
// plant anything in a shared (sticky, 1777) folder.
#include "kforge/scheduler/search/catalog.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/jobs/unique_fd.hpp"
#include "kforge/scheduler/search/strategy_prior_sources.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kSchema = 1;
constexpr std::size_t kMaxEntryBytes = 64 * 1024;

std::string user_name(uid_t uid) {
  const passwd* pw = getpwuid(uid);
  return pw ? pw->pw_name : std::to_string(uid);
}

// Who may read the archive's index: the entry is exactly as visible.
std::pair<mode_t, std::string> visibility_of(const fs::path& archive) {
  struct stat st {};
  if (stat((archive / "campaign.h5").c_str(), &st) != 0) return {0600, "private"};
  if (st.st_mode & S_IROTH) return {0644, "shared"};
  if (st.st_mode & S_IRGRP) return {0640, "group"};
  return {0600, "private"};
}

void write_entry_file(const fs::path& path, const std::string& text, mode_t mode, gid_t group) {
  const fs::path part = path.string() + ".part." + std::to_string(getpid());
  jobs::UniqueFd fd(::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.open()) throw std::runtime_error(part.string() + ": cannot create: " + std::strerror(errno));
  bool ok = write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (ok && mode == 0640) ok = fchown(fd.get(), static_cast<uid_t>(-1), group) == 0 || errno == EPERM;
  ok = ok && fchmod(fd.get(), mode) == 0 && fsync(fd.get()) == 0;
  const int saved = errno;
  if (!ok || rename(part.c_str(), path.c_str()) != 0) {
    const int why = ok ? errno : saved;
    unlink(part.c_str());
    throw std::runtime_error(path.string() + ": cannot write the catalog entry: " + std::strerror(why));
  }
  // The rename made it whole; the folder's own fsync makes it survive a crash (best effort: it is in place either
  // way, so a failure here is no reason to say it is not).
  const jobs::UniqueFd folder(::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder.open()) (void)fsync(folder.get());
}

json to_json(const CatalogEntry& e) {
  return json{{"schema", kSchema},          {"campaign", e.campaign},
              {"family", e.family},         {"fingerprint", e.fingerprint},
              {"parameters", e.parameters}, {"targets", e.targets},
              {"gpu_models", e.gpu_models}, {"archive", e.archive.string()},
              {"visibility", e.visibility}, {"finished", e.finished}};
}

// The entry's text, or why not; std::nullopt when the OS refuses it (another user's private entry).
std::optional<std::string> read_entry_text(const fs::path& file, uid_t& owner, std::string& why) {
  jobs::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd.open()) {
    if (errno == EACCES) return std::nullopt;
    why = std::string("cannot open: ") + std::strerror(errno);
    return std::string();
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    why = "not a regular file";
    return std::string();
  }
  if (static_cast<std::size_t>(st.st_size) > kMaxEntryBytes) {
    why = "larger than " + std::to_string(kMaxEntryBytes) + " bytes";
    return std::string();
  }
  owner = st.st_uid;
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  if (read(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) why = "short read";
  return text;
}

CatalogEntry parse_entry(const fs::path& file, uid_t owner, const std::string& text) {
  const json j = json::parse(text);
  if (j.at("schema").get<int>() != kSchema) throw std::runtime_error("unknown schema " + j.at("schema").dump());
  CatalogEntry e;
  e.file = file;
  e.owner = owner;
  e.owner_name = user_name(owner);
  e.campaign = j.at("campaign").get<std::string>();
  e.family = j.at("family").get<std::string>();
  e.fingerprint = j.at("fingerprint").get<std::string>();
  e.parameters = j.at("parameters").get<std::vector<std::string>>();
  e.targets = j.at("targets").get<std::vector<std::string>>();
  e.gpu_models = j.at("gpu_models").get<std::map<std::string, std::string>>();
  e.archive = j.at("archive").get<std::string>();
  e.visibility = j.at("visibility").get<std::string>();
  e.finished = j.at("finished").get<std::string>();
  if (!e.archive.is_absolute()) throw std::runtime_error("archive is not an absolute path");
  return e;
}

}  // namespace

std::optional<fs::path> catalog_folder(const std::string& site_setting) {
  const char* env = std::getenv("KFORGE_CATALOG");
  const std::string chosen = env && *env ? env : site_setting;
  if (chosen == "none") return std::nullopt;
  if (!chosen.empty()) return fs::absolute(chosen).lexically_normal();
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state == '/') {
    return fs::path(state) / "kforge" / "catalog";
  }
  const char* home = std::getenv("HOME");
  if (!home || *home != '/') {
    const passwd* pw = getpwuid(getuid());
    home = pw && pw->pw_dir ? pw->pw_dir : nullptr;
  }
  if (!home || *home != '/') return std::nullopt;
  return fs::path(home) / ".local" / "state" / "kforge" / "catalog";
}

std::string space_fingerprint(const std::string& family, std::vector<std::string> parameters) {
  std::sort(parameters.begin(), parameters.end());
  std::string text = family;
  for (const auto& p : parameters) text += "\n" + p;
  return jobs::sha256_hex(text).substr(0, 16);
}

CatalogEntry register_campaign(const fs::path& catalog, const CatalogEntry& entry) {
  std::error_code ec;
  if (!fs::is_directory(catalog, ec)) {
    // A user's own catalog is made on first use; a site's shared folder is the administrator's (mode 1777).
    fs::create_directories(catalog, ec);
    if (ec) throw std::runtime_error(catalog.string() + ": cannot create the catalog folder: " + ec.message());
  }
  CatalogEntry e = entry;
  e.owner = getuid();
  e.owner_name = user_name(e.owner);
  e.archive = fs::weakly_canonical(entry.archive);
  const auto [mode, visibility] = visibility_of(e.archive);
  e.visibility = visibility;
  e.finished = jobs::iso8601_now();
  // One entry per owner and archive: running the campaign again replaces it, and no two users' names collide
  // (in a sticky folder nobody may replace another user's file).
  e.file = catalog / (std::to_string(e.owner) + "-" + jobs::sha256_hex(e.archive.string()).substr(0, 16) + ".json");
  struct stat st {};
  const gid_t group = stat((e.archive / "campaign.h5").c_str(), &st) == 0 ? st.st_gid : getgid();
  write_entry_file(e.file, to_json(e).dump(1) + "\n", mode, group);
  return e;
}

CatalogListing list_catalog(const fs::path& catalog, const std::string& fingerprint) {
  CatalogListing out;
  std::error_code ec;
  fs::directory_iterator it(catalog, ec);
  if (ec) return out;  // no catalog yet, or not ours to list
  std::vector<fs::path> files;
  for (const auto& f : it) {
    if (f.path().extension() == ".json") files.push_back(f.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    uid_t owner = 0;
    std::string why;
    const std::optional<std::string> text = read_entry_text(file, owner, why);
    if (!text) continue;
    if (!why.empty()) {
      out.skipped.push_back(file.string() + ": " + why);
      continue;
    }
    try {
      CatalogEntry e = parse_entry(file, owner, *text);
      if (fingerprint.empty() || e.fingerprint == fingerprint) out.entries.push_back(std::move(e));
    } catch (const std::exception& ex) {
      out.skipped.push_back(file.string() + ": not a catalog entry: " + ex.what());
    }
  }
  return out;
}

CatalogPrior read_catalog_prior(const CatalogEntry& entry) {
  CatalogPrior p{entry, {}, ""};
  const fs::path index = entry.archive / "campaign.h5";
  struct stat st {};
  if (stat(index.c_str(), &st) != 0) {
    p.unusable = "cannot read " + index.string() + ": " + std::strerror(errno);
  } else if (st.st_uid != entry.owner) {
    // Someone's entry naming another user's archive: never attributed to the wrong owner, never used.
    p.unusable = index.string() + " belongs to " + user_name(st.st_uid) + ", the entry to " + entry.owner_name;
  } else if (access(index.c_str(), R_OK) != 0) {
    p.unusable = index.string() + " is not readable by " + user_name(getuid());
  } else {
    try {
      p.sets = read_campaign_prior(entry.archive);
      if (p.sets.empty()) p.unusable = "no measurements in " + entry.archive.string();
    } catch (const std::exception& e) {
      p.unusable = e.what();
    }
  }
  return p;
}

UsablePriors usable_catalog_priors(const fs::path& catalog, const std::string& fingerprint, const fs::path& except) {
  UsablePriors out;
  const CatalogListing listing = list_catalog(catalog, fingerprint);
  for (const auto& entry : listing.entries) {
    if (!except.empty() && entry.archive == except) continue;
    CatalogPrior prior = read_catalog_prior(entry);
    if (prior.unusable.empty()) {
      out.priors.push_back(std::move(prior));
    } else {
      out.refused.push_back("not using " + entry.file.string() + ": " + prior.unusable);
    }
  }
  for (const auto& why : listing.skipped) out.refused.push_back("skipped " + why);
  return out;
}

}  // namespace kforge::scheduler
