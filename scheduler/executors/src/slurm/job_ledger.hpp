#pragma once
// What a generation submitted to Slurm, kept in DIR/gNNNN/slurm/ so that a restarted driver re-attaches:
//   jobs              one line per submitted array: "<job id> <array index> <target>"
//   array-K.tasks     task numbers of array K (4 digits, the manifest stem), array task i on line i+1
//   array-K.sbatch    the batch script exactly as submitted
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kforge::scheduler::slurm_detail {

struct LedgerEntry {
  std::uint32_t job_id = 0;
  int array_index = 0;
  std::string target;
  std::vector<int> tasks;  // from array-K.tasks
};

class JobLedger {
 public:
  explicit JobLedger(std::filesystem::path dir) : dir_(std::move(dir)) {}

  std::vector<LedgerEntry> load() const;  // empty when nothing was submitted
  int next_array_index() const;           // one past the highest array index of any file present
  std::filesystem::path task_list(int array_index) const;
  std::filesystem::path script(int array_index) const;
  // Writes array-K.tasks before submission (a crash after it leaves an unused list, never a lost job).
  void write_task_list(int array_index, const std::vector<int>& tasks) const;
  // Records a submitted array; rewrites `jobs` atomically.
  void record(const LedgerEntry& entry) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace kforge::scheduler::slurm_detail
