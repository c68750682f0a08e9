#pragma once
// The tables every archive file has: /records (+ /samples, /evidence, /sources, /metrics) and /baselines.
#include <hdf5.h>

#include <vector>

#include "kforge/jobs/record.hpp"

namespace kforge::jobs::h5 {

void write_records(hid_t file, const std::vector<EvalRecord>& records);
std::vector<EvalRecord> read_records(hid_t file);  // with their /metrics

// /metrics (h5_metrics.cpp): written by write_records; read_metrics appends each row's figure to its record.
void write_metrics(hid_t file, const std::vector<EvalRecord>& records);
void read_metrics(hid_t file, std::vector<EvalRecord>& records);

void write_baselines(hid_t file, const std::vector<Baseline>& baselines);
std::vector<Baseline> read_baselines(hid_t file);

}  // namespace kforge::jobs::h5
