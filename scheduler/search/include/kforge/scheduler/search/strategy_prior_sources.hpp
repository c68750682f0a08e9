#pragma once
// search.prior: reads earlier measurements of the same space into the strategies' prior sets
// (kforge/scheduler/search/strategy.hpp, PriorObservations). A Kernel Tuner cache is one set; an earlier campaign's
// folder gives one set per target it measured, since two GPUs' times are not comparable.
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/search/strategy.hpp"

namespace kforge::scheduler {

// Throws std::runtime_error naming the file when it cannot be read or is not a Kernel Tuner cache.
PriorObservations read_kernel_tuner_prior(const std::filesystem::path& cache);
// Every evaluation of a finished campaign folder, by target (only parameter-level candidates: an agent's
// source-level child shares its parent's parameters but not its time).
std::vector<PriorObservations> read_campaign_prior(const std::filesystem::path& dir);
// The same of an archive already read, each set named "LABEL (target T[ on GPU])".
std::vector<PriorObservations> campaign_prior_sets(const ArchiveView& archive, const std::string& label);
// All of search.prior, in order.
std::vector<PriorObservations> read_search_prior(const std::vector<std::filesystem::path>& paths);

}  // namespace kforge::scheduler
