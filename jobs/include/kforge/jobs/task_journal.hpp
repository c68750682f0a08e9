#pragma once
// Which candidate a task was evaluating when it died. Each rank of kforge-eval appends to its own journal next to
// the task's shard ("run", then "start ID" / "done ID" around every candidate); a run that ends without a shard
// leaves the candidates it started and never finished. A candidate in flight at kDeathsToBlame deaths of its task is
// blamed (recorded crash, not run again) instead of the node (docs/isolation.md, "A candidate that kills its task").
#include <filesystem>
#include <map>
#include <string>

namespace kforge::jobs::journal {

inline constexpr int kDeathsToBlame = 3;

// DIR/shard.h5 -> DIR/shard.h5.rank<R>.journal
std::filesystem::path path_for(const std::filesystem::path& shard, int rank);

// One line each, appended with a single write (a killed rank leaves whole lines). Failures are ignored: a
// journal that cannot be written only costs the blame rule its evidence.
void begin_run(const std::filesystem::path& shard, int rank);
void started(const std::filesystem::path& shard, int rank, const std::string& candidate_id);
void finished(const std::filesystem::path& shard, int rank, const std::string& candidate_id);

// For every candidate: in how many earlier runs of the task (over all ranks' journals) it was started and never
// finished. Empty when there is no journal.
std::map<std::string, int> deaths(const std::filesystem::path& shard);

// The largest figure of deaths(): what the scheduler checks before giving a failed task up.
int most_deaths(const std::filesystem::path& shard);

// Removes every rank's journal (after the shard is written: the task did not die).
void remove_all(const std::filesystem::path& shard);

}  // namespace kforge::jobs::journal
