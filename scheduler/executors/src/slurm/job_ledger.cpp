#include "job_ledger.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "kforge/jobs/text_file.hpp"

namespace kforge::scheduler::slurm_detail {
namespace fs = std::filesystem;

fs::path JobLedger::task_list(int k) const { return dir_ / ("array-" + std::to_string(k) + ".tasks"); }
fs::path JobLedger::script(int k) const { return dir_ / ("array-" + std::to_string(k) + ".sbatch"); }

std::vector<LedgerEntry> JobLedger::load() const {
  std::vector<LedgerEntry> entries;
  if (!fs::exists(dir_ / "jobs")) return entries;
  std::istringstream in(jobs::read_text_file(dir_ / "jobs"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    LedgerEntry e;
    if (!(fields >> e.job_id >> e.array_index >> e.target)) {
      throw std::runtime_error((dir_ / "jobs").string() + ": malformed line '" + line + "'");
    }
    std::istringstream tasks(jobs::read_text_file(task_list(e.array_index)));
    for (int t; tasks >> t;) e.tasks.push_back(t);
    entries.push_back(std::move(e));
  }
  return entries;
}

int JobLedger::next_array_index() const {
  int next = 0;
  while (fs::exists(task_list(next))) ++next;
  return next;
}

void JobLedger::write_task_list(int k, const std::vector<int>& tasks) const {
  fs::create_directories(dir_);
  std::string text;
  char line[32];
  for (int t : tasks) {
    std::snprintf(line, sizeof line, "%04d\n", t);  // the manifest's file stem: tasks/0007.yaml
    text += line;
  }
  jobs::write_text_file_atomically(task_list(k), text);
}

void JobLedger::record(const LedgerEntry& entry) const {
  std::string text = fs::exists(dir_ / "jobs") ? jobs::read_text_file(dir_ / "jobs") : std::string();
  text += std::to_string(entry.job_id) + " " + std::to_string(entry.array_index) + " " + entry.target + "\n";
  jobs::write_text_file_atomically(dir_ / "jobs", text);
}

}  // namespace kforge::scheduler::slurm_detail
