#pragma once
// Kernels feed engines (docs/engines.md, "Kernels from earlier campaigns"): an engine campaign's engine.kernels_from
// names finished host gemm and kda campaigns; the best kernel of each becomes the GEMM, or the KDA prefill kernel
// (its parameters as KDA_CHUNK, ...), of one first-generation engine.
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/search/population.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {

// One candidate (op "kernels_from") per folder of campaign.engine_kernels_from: a random genome of the engine's
// space whose gemm parameters (a gemm campaign) or KDA_* parameters (a kda campaign) are the archive's best record's
// values. Throws std::runtime_error naming the folder when it holds no finished campaign, its best record is not a
// host gemm or kda kernel, a kda kernel would go to a model without KDA layers, or a parameter or value of the
// kernel is not in the engine's space (the message says which to add).
// Ids already in `seen` are skipped; new ids are added.
// Before anything is written (validate_campaign): every folder's best kernel can be imported, else a ConfigError
// at engine.kernels_from[i] saying why (as imported_kernel_candidates would throw).
void check_kernels_from(const CampaignConfig& campaign, const SearchSpace& space);

std::vector<jobs::Candidate> imported_kernel_candidates(const CampaignConfig& campaign, const SearchSpace& space,
                                                        const CandidateTemplate& tmpl, int island,
                                                        std::set<std::string>& seen, std::mt19937_64& rng);

}  // namespace kforge::scheduler
