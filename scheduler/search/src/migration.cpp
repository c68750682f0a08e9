#include "kforge/scheduler/search/migration.hpp"

#include <algorithm>
#include <cstddef>

namespace kforge::scheduler {

void migrate_between_islands(std::vector<jobs::PopulationEntry>& population, int islands, int generation,
                             const SearchSpec& search) {
  const int every = search.migration_interval;
  if (islands < 2 || every <= 0 || (generation + 1) % every != 0) return;
  std::vector<std::vector<jobs::PopulationEntry>> by_island(static_cast<size_t>(islands));
  for (const auto& e : population) by_island[static_cast<size_t>(e.island)].push_back(e);
  for (auto& members : by_island) {  // best first; selection already sorted them, keep it explicit
    std::stable_sort(members.begin(), members.end(),
                     [](const auto& a, const auto& b) { return a.fitness_ms < b.fitness_ms; });
  }
  std::vector<std::vector<jobs::PopulationEntry>> next = by_island;
  for (int i = 0; i < islands; ++i) {
    auto& to = next[static_cast<size_t>((i + 1) % islands)];
    const auto& from = by_island[static_cast<size_t>(i)];
    const size_t n = std::min(from.size(), static_cast<size_t>(search.migration_size));
    for (size_t k = 0; k < n; ++k) {
      const bool present =
          std::any_of(to.begin(), to.end(), [&](const auto& e) { return e.candidate_id == from[k].candidate_id; });
      if (present) continue;
      if (!to.empty() && static_cast<int>(to.size()) >= search.population) to.pop_back();  // the worst
      jobs::PopulationEntry migrant = from[k];
      migrant.island = (i + 1) % islands;
      to.insert(to.begin() + static_cast<std::ptrdiff_t>(k), migrant);
    }
  }
  population.clear();
  for (const auto& members : next) population.insert(population.end(), members.begin(), members.end());
}

}  // namespace kforge::scheduler
