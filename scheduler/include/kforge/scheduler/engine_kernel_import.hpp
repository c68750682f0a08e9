#pragma once
// Kernels feed engines (docs/engines.md, "Kernels from earlier campaigns"): an engine campaign's engine.kernels_from
// names finished gemm campaigns; the best gemm kernel of each becomes the GEMM of one first-generation engine.
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/scheduler/config.hpp"
#include "kforge/scheduler/population.hpp"
#include "kforge/scheduler/search_space.hpp"

namespace kforge::scheduler {

// One candidate (op "kernels_from") per folder of campaign.engine_kernels_from: a random genome of the engine's
// space whose gemm parameters (the parameters the engine's space shares with the archive's best record) are that
// record's values. Throws std::runtime_error naming the folder when it holds no finished campaign, its best record
// is not a gemm kernel, or an imported value is not in the engine's space (the message says which to add).
// Ids already in `seen` are skipped; new ids are added.
std::vector<jobs::Candidate> imported_kernel_candidates(const CampaignConfig& campaign, const SearchSpace& space,
                                                        const CandidateTemplate& tmpl, int island,
                                                        std::set<std::string>& seen, std::mt19937_64& rng);

}  // namespace kforge::scheduler
