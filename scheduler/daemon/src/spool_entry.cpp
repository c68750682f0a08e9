// One campaign's line of `kforge status` over a spool, read from its folder by a helper process (as_user.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "fields.hpp"
#include "kforge/scheduler/daemon/as_user.hpp"
#include "kforge/scheduler/daemon/user_file.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "spool_entry.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

// A helper reading one campaign for `kforge status` is killed after this long: a FIFO where an HDF5 file should
// be (HDF5 opens files without O_NONBLOCK) costs that one line of the table, not the whole command.
constexpr std::chrono::seconds kEntryLimit{5};

// Arrays the Slurm executor recorded for the generation in progress: lines "<job id> <array index> <target>".
std::vector<ArrayJob> jobs_of(const CampaignDir& dir, int generation) {
  const std::optional<std::string> text = read_user_file_if_present(dir.generation_dir(generation) / "slurm" / "jobs");
  std::istringstream in(text.value_or(""));
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
  bool cancelled = false;
  bool failed = false;
  try {
    require_real_directory(dir.root());
    cancelled = present(spool.cancelled_marker(c));
    failed = present(spool.failed_marker(c));
    if (failed) e.reason = read_user_file(spool.failed_marker(c), 64 << 10);
    while (!e.reason.empty() && e.reason.back() == '\n') e.reason.pop_back();
    // build_report reads campaign.yaml again; this read refuses a FIFO, a symlink or a file over the limit first
    // (a hard link to a huge file would cost a YAML parse of all of it).
    read_user_file(dir.campaign_config());
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
    // A folder that cannot be read is not run either (kforged marks it failed, in its FAILED when it can).
    e.state = cancelled && !failed ? CampaignState::cancelled : CampaignState::failed;
    if (!failed || e.reason.empty()) e.reason = std::string("cannot read the campaign directory: ") + ex.what();
  }
  return e;
}

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string encode_entry(const SpoolEntry& e) {
  fields::FieldWriter w;
  w.blob("owner", e.owner).blob("campaign", e.campaign).blob("directory", e.directory);
  w.number("state", static_cast<int>(e.state)).number("done", e.generations_done);
  w.number("planned", e.generations_planned).number("tasks_done", e.tasks_done).number("tasks", e.tasks);
  w.number("evaluations", e.evaluations).blob("best_ms", number_text(e.best_ms)).blob("eta_s", number_text(e.eta_s));
  w.number("jobs", static_cast<long long>(e.jobs.size()));
  for (const ArrayJob& a : e.jobs) w.blob("job", a.job).blob("target", a.target);
  return w.blob("reason", e.reason).text();
}

SpoolEntry decode_entry(const std::string& text) {
  fields::FieldReader r(text, "the answer of a status helper");
  SpoolEntry e;
  e.owner = r.blob("owner");
  e.campaign = r.blob("campaign");
  e.directory = r.blob("directory");
  e.state = static_cast<CampaignState>(std::clamp(r.number("state"), 0LL, 4LL));
  e.generations_done = static_cast<int>(r.number("done"));
  e.generations_planned = static_cast<int>(r.number("planned"));
  e.tasks_done = static_cast<int>(r.number("tasks_done"));
  e.tasks = static_cast<int>(r.number("tasks"));
  e.evaluations = static_cast<int>(r.number("evaluations"));
  e.best_ms = std::strtod(r.blob("best_ms").c_str(), nullptr);
  e.eta_s = std::strtod(r.blob("eta_s").c_str(), nullptr);
  const long long jobs = r.number("jobs");
  for (long long i = 0; i < jobs && !r.at_end(); ++i) {
    ArrayJob a;
    a.job = r.blob("job");
    a.target = r.blob("target");
    e.jobs.push_back(std::move(a));
  }
  e.reason = r.blob("reason");
  return e;
}

// Whom root reads OWNER's folder as: the account, or for a folder whose account is gone, the folder's owner.
Account reader_of(const Spool& spool, const std::string& owner) {
  try {
    return account_by_name(owner);
  } catch (const std::runtime_error&) {
    struct stat st {};
    if (::lstat(spool.user_dir(owner).c_str(), &st) != 0) throw;
    Account a;
    a.uid = st.st_uid;
    a.gid = st.st_gid;
    a.name = owner;
    a.groups = {st.st_gid};
    return a;
  }
}

}  // namespace

SpoolEntry read_campaign_entry(const Spool& spool, const CampaignRef& c) {
  try {
    const bool root = can_switch_users();
    const Account reader = root ? reader_of(spool, c.owner) : account_by_uid(::geteuid());
    return decode_entry(run_as(reader, root, kEntryLimit, [&] { return encode_entry(entry_for(spool, c)); }));
  } catch (const std::exception& ex) {
    SpoolEntry e;
    e.owner = c.owner;
    e.campaign = c.name;
    e.directory = spool.campaign(c).root().string();
    e.reason = std::string("cannot read the campaign directory: ") + ex.what();
    return e;
  }
}

}  // namespace kforge::scheduler::daemon
