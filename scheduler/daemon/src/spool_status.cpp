// `kforge status` over a whole spool: one line per campaign, squeue-like, or JSON (docs/daemon.md).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <set>
#include <sstream>

#include "kforge/jobs/json_text.hpp"
#include "kforge/scheduler/daemon/client.hpp"
#include "kforge/scheduler/daemon/request.hpp"
#include "kforge/scheduler/daemon/user_file.hpp"
#include "kforge/scheduler/daemon/visible_text.hpp"
#include "spool_entry.hpp"

#ifndef KFORGE_VERSION
#define KFORGE_VERSION "unknown"
#endif

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

// "4711:hopper,4712:blackwell", or "-".
std::string jobs_text(const std::vector<ArrayJob>& arrays) {
  std::string out;
  for (const auto& a : arrays) out += (out.empty() ? "" : ",") + a.job + (a.target.empty() ? "" : ":" + a.target);
  return out.empty() ? "-" : out;
}

std::string format_ms(double v) {
  if (!(v == v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string format_duration(double s) {
  if (!(s == s)) return "-";
  const long total = static_cast<long>(s + 0.5);
  char buf[32];
  if (total >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, total % 3600 / 60);
  } else if (total >= 60) {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lds", total);
  }
  return buf;
}

// The caller's pending submits, as queued entries (names already in `known` skipped).
std::vector<SpoolEntry> pending_entries(const Spool& spool, std::set<std::string>& known) {
  std::vector<SpoolEntry> out;
  std::string me;
  try {
    me = current_user_name();
  } catch (const std::exception&) {
    return out;
  }
  for (const fs::path& file : pending_requests(spool)) {
    try {
      struct stat st {};
      if (::lstat(file.c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
      const Request r = decode_request(read_user_file(file, 4 << 20), file);
      if (r.kind != RequestKind::submit || !known.insert(me + "/" + r.name).second) continue;
      SpoolEntry e;
      e.owner = me;
      e.campaign = r.name;
      e.directory = spool.campaign(CampaignRef{me, r.name}).root().string();
      e.generations_planned = parse_campaign(r.campaign_text, file).search.generations;
      out.push_back(e);
    } catch (const std::exception&) {
      // processed meanwhile, or malformed (the daemon logs and drops it)
    }
  }
  return out;
}

bool by_owner_and_name(const SpoolEntry& a, const SpoolEntry& b) {
  return a.owner != b.owner ? a.owner < b.owner : a.campaign < b.campaign;
}

}  // namespace

std::vector<SpoolEntry> read_spool_status(const Spool& spool) {
  // A spool that exists but cannot be entered is another user's private one: say so instead of an empty list.
  if (::access(spool.root().c_str(), F_OK) == 0 && ::access(spool.root().c_str(), X_OK) != 0) {
    throw RequestRefused("permission denied: " + spool.root().string() +
                         " is not accessible to you (a spool kept private by the user whose kforged serves it; "
                         "a multi-user spool is mode 0711: docs/daemon.md)");
  }
  std::vector<SpoolEntry> entries;
  std::set<std::string> known;
  for (const CampaignRef& c : spool.campaigns()) {
    entries.push_back(read_campaign_entry(spool, c));
    known.insert(c.key());
  }
  for (SpoolEntry& e : pending_entries(spool, known)) entries.push_back(std::move(e));
  std::sort(entries.begin(), entries.end(), by_owner_and_name);
  return entries;
}

SpoolEntry read_campaign_status(const Spool& spool, const std::string& name, const std::string& owner) {
  if (!is_valid_campaign_name(name)) throw RequestRefused("'" + name + "' is not a campaign name");
  if (!owner.empty() && !is_valid_campaign_name(owner)) throw RequestRefused("'" + owner + "' is not a user name");
  const CampaignRef c{owner.empty() ? current_user_name() : owner, name};
  switch (campaign_visibility(spool, c)) {
    case CampaignVisibility::visible:
      return read_campaign_entry(spool, c);
    case CampaignVisibility::forbidden:
      throw RequestRefused(not_visible_message(spool, c));
    case CampaignVisibility::missing:
      break;
  }
  std::set<std::string> known;
  for (SpoolEntry& e : pending_entries(spool, known)) {
    if (e.owner == c.owner && e.campaign == name) return e;
  }
  throw RequestRefused("no campaign '" + name + "' of user " + c.owner + " in " + spool.root().string() +
                       " (see `kforge status`)");
}

void write_spool_table(std::ostream& out, const std::vector<SpoolEntry>& entries) {
  char line[512];
  std::snprintf(line, sizeof line, "%-12s %-24s %-9s %10s %9s %9s %10s %-16s %8s\n", "OWNER", "CAMPAIGN", "STATE",
                "GENS_DONE", "TASKS", "EVALUATED", "BEST_MS", "JOBS", "ETA");
  out << line;
  for (const auto& e : entries) {
    // Counts as "N of M", like `kforge status DIR`: generation numbers themselves are 0-based everywhere.
    const std::string gen = std::to_string(e.generations_done) + " of " + std::to_string(e.generations_planned);
    const std::string tasks = e.tasks ? std::to_string(e.tasks_done) + "/" + std::to_string(e.tasks) : "-";
    // What users wrote (a FAILED marker, a Slurm ledger) is shown escaped: root's and the admins' terminals run
    // this over every user's campaigns.
    std::snprintf(line, sizeof line, "%-12s %-24s %-9s %10s %9s %9d %10s %-16s %8s\n", visible(e.owner).c_str(),
                  visible(e.campaign).c_str(), to_string(e.state), gen.c_str(), tasks.c_str(), e.evaluations,
                  format_ms(e.best_ms).c_str(), visible(jobs_text(e.jobs)).c_str(), format_duration(e.eta_s).c_str());
    out << line;
  }
  for (const auto& e : entries) {
    if (!e.reason.empty()) out << visible(e.campaign) << ": " << visible(e.reason) << "\n";
  }
}

void write_spool_json(std::ostream& out, const Spool& spool, const std::vector<SpoolEntry>& entries) {
  jobs::JsonWriter w(out);
  w.begin_object();
  w.field("schema_version", kSpoolStatusSchemaVersion);
  w.key("context").begin_object();
  w.field("creator", "kforge").field("kforge_version", KFORGE_VERSION).field("created", jobs::iso8601_now());
  w.field("spool", spool.root().string()).field("daemon_running", spool.daemon_is_running()).end_object();
  w.key("campaigns").begin_array();
  for (const auto& e : entries) {
    w.begin_object();
    w.field("owner", e.owner).field("campaign", e.campaign).field("state", to_string(e.state));
    w.field("generations_done", e.generations_done).field("generations_planned", e.generations_planned);
    w.field("tasks_done", e.tasks_done).field("tasks", e.tasks).field("evaluations", e.evaluations);
    w.field("best_ms", e.best_ms).field("eta_s", e.eta_s);
    w.key("jobs").begin_array();
    for (const auto& a : e.jobs) w.begin_object().field("job", a.job).field("target", a.target).end_object();
    w.end_array();
    w.field("reason", e.reason).field("directory", e.directory).end_object();
  }
  w.end_array().end_object();
  out << "\n";
}

}  // namespace kforge::scheduler::daemon
