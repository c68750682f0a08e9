#include "kforge/scheduler/driver/infra_failure.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "kforge/jobs/text_file.hpp"

namespace kforge::scheduler {
namespace {

// The first clause of a reason ("attempt 3 Slurm array task 812_0 FAILED (NonZeroExitCode, exit code 1)"),
// digits folded, so that the same cause on many tasks reads as one line.
std::string cause_of(const std::string& reason) {
  std::string first = reason.substr(0, reason.find(';'));
  first = first.substr(0, first.find('\n'));
  std::string folded;
  for (char c : first) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (folded.empty() || folded.back() != '#') folded += '#';
    } else {
      folded += c;
    }
  }
  return folded;
}

std::string share_text(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", share);
  return buf;
}

}  // namespace

std::optional<std::string> infrastructure_diagnosis(const CampaignDir& dir, int generation,
                                                    const std::vector<jobs::TaskManifest>& tasks,
                                                    const std::map<int, std::string>& failed_tasks,
                                                    const Gathered& gathered, double stop_share) {
  const auto& records = gathered.records;
  const auto infra = std::count_if(records.begin(), records.end(),
                                   [](const jobs::EvalRecord& r) { return r.status == jobs::Status::infra_error; });
  if (records.empty() || static_cast<double>(infra) < stop_share * static_cast<double>(records.size())) {
    return std::nullopt;
  }
  std::map<std::string, int> causes;  // folded cause -> tasks
  for (const auto& [task, reason] : failed_tasks) ++causes[cause_of(reason)];
  std::string evidence_of_first;
  for (const auto& r : records) {
    if (r.status != jobs::Status::infra_error) continue;
    if (failed_tasks.empty()) ++causes[cause_of(r.evidence)];
    if (evidence_of_first.empty()) evidence_of_first = r.evidence;
  }
  const std::filesystem::path file = dir.generation_dir(generation) / "infra-failure.txt";
  std::string text = "generation " + std::to_string(generation) + " stopped the campaign: " + std::to_string(infra) +
                     " of " + std::to_string(records.size()) + " records failed for infrastructure reasons (" +
                     std::to_string(failed_tasks.size()) + " of " + std::to_string(tasks.size()) +
                     " tasks failed; site.stop_at_infra_error_share is " + share_text(stop_share) +
                     "). Nothing of this generation was archived and nothing was bred from it. Causes:";
  int shown = 0;
  for (const auto& [cause, n] : causes) {
    if (shown++ == 3) break;
    text += " [" + std::to_string(n) + "x] " + cause + ";";
  }
  text += " first record's evidence: " + evidence_of_first.substr(0, 1500) +
          (evidence_of_first.size() > 1500 ? " ..." : "") + ". All of it: " + file.string() +
          ". Fix the cause and run the same command again: this generation's failed tasks are run again.";
  std::string full = text + "\n\nEvery failed task:\n";
  for (const auto& [task, reason] : failed_tasks) full += "task " + std::to_string(task) + ": " + reason + "\n";
  jobs::write_text_file_atomically(file, full);
  return text;
}

}  // namespace kforge::scheduler
