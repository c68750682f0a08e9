#pragma once
// Tables only generation files have: /candidates (+ /candidate_sources), /lineage and /population.
#include <hdf5.h>

#include <vector>

#include "kforge/jobs/archive.hpp"

namespace kforge::jobs::h5 {

void write_candidates(hid_t file, const std::vector<Candidate>& candidates);  // also writes /lineage
std::vector<Candidate> read_candidates(hid_t file);

void write_population(hid_t file, const std::vector<PopulationEntry>& population);
std::vector<PopulationEntry> read_population(hid_t file);

// /operator_weights, /lessons and /validation (h5_lessons.cpp); read_learning leaves them empty for version-1 files.
void write_learning(hid_t file, const Generation& g);
void read_learning(hid_t file, Generation& g);

}  // namespace kforge::jobs::h5
