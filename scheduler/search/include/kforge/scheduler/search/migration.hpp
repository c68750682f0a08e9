#pragma once
// Island migration (search.migration_interval, search.migration_size; docs/campaign-schema.md): the one place
// that decides which survivors move between islands, and when. The driver applies it to each generation's
// population after selection.
#include <vector>

#include "kforge/jobs/archive.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

// Every search.migration_interval generations (counted from 1: generation g migrates when (g + 1) is a multiple),
// the search.migration_size best survivors of each island join the next island (a ring), replacing its worst
// once it holds search.population; a candidate already on that island is not copied again. Migrants breed there
// from the next generation on and are evaluated on that island's target only as their children are. Islands
// stay separate otherwise; with fewer than two islands or an interval of 0 nothing moves. The population comes
// back grouped by island: on each, the migrants first, then its own survivors best first.
void migrate_between_islands(std::vector<jobs::PopulationEntry>& population, int islands, int generation,
                             const SearchSpec& search);

}  // namespace kforge::scheduler
