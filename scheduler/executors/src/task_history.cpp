#include "kforge/scheduler/executors/task_history.hpp"

#include <set>
#include <utility>

namespace kforge::scheduler {

void add_task_history(std::vector<jobs::EvalRecord>& records, const std::vector<jobs::TaskManifest>& tasks,
                      const std::map<int, std::string>& history) {
  for (const auto& t : tasks) {
    const auto it = history.find(t.task);
    if (it == history.end() || it->second.empty()) continue;
    std::set<std::pair<std::string, std::string>> mine;  // (candidate id, target)
    for (const auto& c : t.candidates) mine.emplace(c.id, t.target);
    for (auto& r : records) {
      if (!mine.count({r.candidate_id, r.target})) continue;
      r.evidence +=
          (r.evidence.empty() ? "" : "\n") + ("scheduler: task " + std::to_string(t.task) + ": " + it->second);
    }
  }
}

}  // namespace kforge::scheduler
