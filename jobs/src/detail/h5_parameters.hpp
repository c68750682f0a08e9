#pragma once
// /parameters of a generation file: the records' genomes as typed columns (docs/archive-schema.md).
#include <hdf5.h>

#include <vector>

#include "kforge/jobs/record.hpp"

namespace kforge::jobs::h5 {

// One compound row per record, aligned with /records; nothing is written when no record has a readable genome.
void write_parameter_table(hid_t file, const std::vector<EvalRecord>& records);

}  // namespace kforge::jobs::h5
