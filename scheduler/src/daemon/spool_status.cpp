// `kforge status` over a whole spool: one line per campaign, squeue-like, or JSON (docs/daemon.md).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

#include "detail/json_writer.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/daemon/client.hpp"
#include "kforge/scheduler/daemon/request.hpp"
#include "kforge/scheduler/report.hpp"

#ifndef KFORGE_VERSION
#define KFORGE_VERSION "unknown"
#endif

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

// Arrays the Slurm executor recorded for the generation in progress: lines "<job id> <array index> <target>".
std::vector<ArrayJob> jobs_of(const CampaignDir& dir, int generation) {
  std::ifstream in(dir.generation_dir(generation) / "slurm" / "jobs");
  std::vector<ArrayJob> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    ArrayJob a;
    std::string index;
    if (!(fields >> a.job)) continue;
    fields >> index >> a.target;
    out.push_back(a);
  }
  return out;
}

// "4711:hopper,4712:blackwell", or "-".
std::string jobs_text(const std::vector<ArrayJob>& arrays) {
  std::string out;
  for (const auto& a : arrays) out += (out.empty() ? "" : ",") + a.job + (a.target.empty() ? "" : ":" + a.target);
  return out.empty() ? "-" : out;
}

double seconds_since_epoch(fs::file_time_type t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

// The remaining generations at the mean pace so far (from generation 0's planning to the last generation file).
double eta_seconds(const CampaignDir& dir, int done, int planned) {
  if (done < 1) return jobs::kNaN;
  std::error_code a, b;
  const auto first = fs::last_write_time(dir.tasks_complete_marker(0), a);
  const auto last = fs::last_write_time(dir.generation_file(done - 1), b);
  if (a || b) return jobs::kNaN;
  const double pace = (seconds_since_epoch(last) - seconds_since_epoch(first)) / done;
  const double since_last = seconds_since_epoch(fs::file_time_type::clock::now()) - seconds_since_epoch(last);
  return std::max(0.0, pace * (planned - done) - since_last);
}

SpoolEntry entry_for(const Spool& spool, const CampaignRef& c) {
  SpoolEntry e;
  e.owner = c.owner;
  e.campaign = c.name;
  const CampaignDir dir = spool.campaign(c);
  e.directory = dir.root().string();
  std::error_code ec1, ec2;
  const bool cancelled = fs::exists(spool.cancelled_marker(c), ec1);
  const bool failed = fs::exists(spool.failed_marker(c), ec2);
  try {
    if (failed) e.reason = jobs::read_text_file(spool.failed_marker(c));
    while (!e.reason.empty() && e.reason.back() == '\n') e.reason.pop_back();
    const CampaignReport r = build_report(dir);
    e.generations_done = r.generations_done;
    e.generations_planned = r.generations_planned;
    e.tasks_done = r.current_tasks_done;
    e.tasks = r.current_tasks;
    e.evaluations = r.evaluations;
    if (r.best) e.best_ms = r.best->time_median_ms;
    const bool done = r.generations_done >= r.generations_planned;
    e.state = done        ? CampaignState::done
              : failed    ? CampaignState::failed
              : cancelled ? CampaignState::cancelled
              : r.running ? CampaignState::running
                          : CampaignState::queued;
    if (!done) e.jobs = jobs_of(dir, r.generations_done);
    if (!done && !failed && !cancelled) e.eta_s = eta_seconds(dir, r.generations_done, r.generations_planned);
  } catch (const std::exception& ex) {
    e.state = failed ? CampaignState::failed : cancelled ? CampaignState::cancelled : CampaignState::queued;
    e.reason = std::string("cannot read the campaign directory: ") + ex.what();
  }
  return e;
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
      const Request r = decode_request(jobs::read_text_file(file), file);
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
    entries.push_back(entry_for(spool, c));
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
      return entry_for(spool, c);
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
    std::snprintf(line, sizeof line, "%-12s %-24s %-9s %10s %9s %9d %10s %-16s %8s\n", e.owner.c_str(),
                  e.campaign.c_str(), to_string(e.state), gen.c_str(), tasks.c_str(), e.evaluations,
                  format_ms(e.best_ms).c_str(), jobs_text(e.jobs).c_str(), format_duration(e.eta_s).c_str());
    out << line;
  }
  for (const auto& e : entries) {
    if (!e.reason.empty()) out << e.campaign << ": " << e.reason << "\n";
  }
}

void write_spool_json(std::ostream& out, const Spool& spool, const std::vector<SpoolEntry>& entries) {
  detail::JsonWriter w(out);
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
