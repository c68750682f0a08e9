// /records and its side tables. Scalars live in one compound row (what pandas loads); the timing samples and
// the long texts live in aligned datasets so a table of thousands of records stays light.
#include "detail/h5_records.hpp"

#include <cstddef>

#include "detail/h5_table.hpp"
#include "kforge/jobs/statistics.hpp"

namespace kforge::jobs::h5 {
namespace {

struct RecordRow {
  const char* candidate_id;
  const char* family;
  const char* backend;
  const char* params;
  const char* parents;  // ids joined with ','
  const char* op;
  std::int32_t generation;
  std::int32_t island;
  const char* target;
  const char* status;
  int status_code;  // HDF5 enum "status_t"
  double time_median_ms;
  double time_min_ms;
  double time_spread_rel;
  std::int32_t sample_count;
  std::uint64_t sample_offset;  // this record's samples are /samples[sample_offset : sample_offset + sample_length]
  std::uint64_t sample_length;
  double speedup;
  double max_abs_error;
  double max_rel_error;
  double compile_ms;
  std::int32_t registers;
  std::int64_t shared_bytes;
  std::int64_t spill_bytes;
  const char* host;
  const char* gpu_model;
  std::int64_t slurm_job_id;
  std::int32_t slurm_array_task;
  std::int32_t rank;
  const char* evaluated_at;
  double harness_ms;
  std::uint8_t timing_noisy;  // added after schema_version 1 was first written: older files lack it
  double time_spread_iqr;     // added with issue 32: older files lack it (computed from their samples)
};

Datatype status_enum_type() {
  Datatype type(KFORGE_H5_CHECK(H5Tenum_create(H5T_NATIVE_INT)));
  for (Status s : kAllStatuses) {
    int code = static_cast<int>(s);
    KFORGE_H5_CHECK(H5Tenum_insert(type, std::string(to_string(s)).c_str(), &code));
  }
  return type;
}

constexpr const char* kTimingNoisy = "timing_noisy";
constexpr const char* kSpreadIqr = "time_spread_iqr";

// The members added to /records after it was first written; a file that predates one lacks it.
struct LaterMembers {
  bool timing_noisy = true;
  bool time_spread_iqr = true;
};

// The row type; without the members added later when reading a file that predates them (they stay 0).
Datatype record_type(LaterMembers later = {}) {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(RecordRow))));
  Datatype str = vlen_string_type();
  Datatype status = status_enum_type();
  KFORGE_MEMBER(t, RecordRow, candidate_id, str);
  KFORGE_MEMBER(t, RecordRow, family, str);
  KFORGE_MEMBER(t, RecordRow, backend, str);
  KFORGE_MEMBER(t, RecordRow, params, str);
  KFORGE_MEMBER(t, RecordRow, parents, str);
  KFORGE_MEMBER(t, RecordRow, op, str);
  KFORGE_MEMBER(t, RecordRow, generation, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, RecordRow, island, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, RecordRow, target, str);
  KFORGE_MEMBER(t, RecordRow, status, str);
  KFORGE_MEMBER(t, RecordRow, status_code, status);
  KFORGE_MEMBER(t, RecordRow, time_median_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, RecordRow, time_min_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, RecordRow, time_spread_rel, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, RecordRow, sample_count, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, RecordRow, sample_offset, H5T_NATIVE_UINT64);
  KFORGE_MEMBER(t, RecordRow, sample_length, H5T_NATIVE_UINT64);
  KFORGE_MEMBER(t, RecordRow, speedup, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, RecordRow, max_abs_error, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, RecordRow, max_rel_error, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, RecordRow, compile_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, RecordRow, registers, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, RecordRow, shared_bytes, H5T_NATIVE_INT64);
  KFORGE_MEMBER(t, RecordRow, spill_bytes, H5T_NATIVE_INT64);
  KFORGE_MEMBER(t, RecordRow, host, str);
  KFORGE_MEMBER(t, RecordRow, gpu_model, str);
  KFORGE_MEMBER(t, RecordRow, slurm_job_id, H5T_NATIVE_INT64);
  KFORGE_MEMBER(t, RecordRow, slurm_array_task, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, RecordRow, rank, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, RecordRow, evaluated_at, str);
  KFORGE_MEMBER(t, RecordRow, harness_ms, H5T_NATIVE_DOUBLE);
  if (later.timing_noisy) KFORGE_MEMBER(t, RecordRow, timing_noisy, H5T_NATIVE_UINT8);
  if (later.time_spread_iqr) KFORGE_MEMBER(t, RecordRow, time_spread_iqr, H5T_NATIVE_DOUBLE);
  return t;
}

const std::vector<std::pair<std::string, std::string>> kRecordUnits = {
    {"time_median_ms", "ms"}, {"time_min_ms", "ms"},     {"time_spread_rel", "1"}, {"sample_count", "1"},
    {"speedup", "1"},         {"max_abs_error", "1"},    {"max_rel_error", "1"},   {"compile_ms", "ms"},
    {"registers", "1"},       {"shared_bytes", "bytes"}, {"spill_bytes", "bytes"}, {"harness_ms", "ms"},
    {"timing_noisy", "1"},    {"time_spread_iqr", "1"},
};

// Row pointers refer into r and into `parents`, which must outlive the write.
RecordRow to_row(const EvalRecord& r, const std::string& parents, std::uint64_t sample_offset) {
  return RecordRow{r.candidate_id.c_str(),
                   r.family.c_str(),
                   r.backend.c_str(),
                   r.params.c_str(),
                   parents.c_str(),
                   r.op.c_str(),
                   r.generation,
                   r.island,
                   r.target.c_str(),
                   to_string(r.status).data(),
                   static_cast<int>(r.status),
                   r.time_median_ms,
                   r.time_min_ms,
                   r.time_spread_rel,
                   r.sample_count,
                   sample_offset,
                   r.samples_ms.size(),
                   r.speedup,
                   r.max_abs_error,
                   r.max_rel_error,
                   r.compile_ms,
                   r.registers,
                   r.shared_bytes,
                   r.spill_bytes,
                   r.host.c_str(),
                   r.gpu_model.c_str(),
                   r.slurm_job_id,
                   r.slurm_array_task,
                   r.rank,
                   r.evaluated_at.c_str(),
                   r.harness_ms,
                   static_cast<std::uint8_t>(r.timing_noisy ? 1 : 0),
                   r.time_spread_iqr};
}

Status status_of(const RecordRow& row) {
  auto status = status_from_string(text_or_empty(row.status));
  if (!status)
    throw std::runtime_error("record " + text_or_empty(row.candidate_id) + ": unknown status '" +
                             text_or_empty(row.status) + "'");
  return *status;
}

std::vector<double> samples_of(const RecordRow& row, const std::vector<double>& samples) {
  if (row.sample_offset > samples.size() || row.sample_length > samples.size() - row.sample_offset)
    throw std::runtime_error("record " + text_or_empty(row.candidate_id) + ": sample range lies outside /samples");
  auto first = samples.begin() + static_cast<std::ptrdiff_t>(row.sample_offset);
  return {first, first + static_cast<std::ptrdiff_t>(row.sample_length)};
}

EvalRecord from_row(const RecordRow& row, const std::vector<double>& samples) {
  EvalRecord r;
  r.candidate_id = text_or_empty(row.candidate_id);
  r.family = text_or_empty(row.family);
  r.backend = text_or_empty(row.backend);
  r.params = text_or_empty(row.params);
  r.parents = split_ids(text_or_empty(row.parents));
  r.op = text_or_empty(row.op);
  r.generation = row.generation;
  r.island = row.island;
  r.target = text_or_empty(row.target);
  r.status = status_of(row);
  r.time_median_ms = row.time_median_ms;
  r.time_min_ms = row.time_min_ms;
  r.time_spread_rel = row.time_spread_rel;
  r.sample_count = row.sample_count;
  r.samples_ms = samples_of(row, samples);
  r.speedup = row.speedup;
  r.max_abs_error = row.max_abs_error;
  r.max_rel_error = row.max_rel_error;
  r.compile_ms = row.compile_ms;
  r.registers = row.registers;
  r.shared_bytes = row.shared_bytes;
  r.spill_bytes = row.spill_bytes;
  r.host = text_or_empty(row.host);
  r.gpu_model = text_or_empty(row.gpu_model);
  r.slurm_job_id = row.slurm_job_id;
  r.slurm_array_task = row.slurm_array_task;
  r.rank = row.rank;
  r.evaluated_at = text_or_empty(row.evaluated_at);
  r.harness_ms = row.harness_ms;
  r.timing_noisy = row.timing_noisy != 0;
  r.time_spread_iqr = row.time_spread_iqr;
  return r;
}

void write_samples(hid_t file, const std::vector<EvalRecord>& records) {
  std::vector<double> all;
  for (const auto& r : records) all.insert(all.end(), r.samples_ms.begin(), r.samples_ms.end());
  Dataset ds = write_table(file, "samples", H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, all,
                           TableLayout{.chunk_rows = 4096, .compress = true});
  write_attr(ds, "units", "ms");
}

std::vector<double> read_samples(hid_t file) {
  Dataset ds = open_table(file, "samples");
  std::vector<double> all(row_count(ds));
  if (!all.empty()) KFORGE_H5_CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()));
  return all;
}

}  // namespace

void write_records(hid_t file, const std::vector<EvalRecord>& records) {
  std::vector<std::string> parents;  // sized up front: rows point into these strings
  parents.reserve(records.size());
  for (const auto& r : records) parents.push_back(join_ids(r.parents, "record " + r.candidate_id));
  std::vector<RecordRow> rows;
  std::vector<const char*> evidence, sources, failed_cases, ptx;
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    rows.push_back(to_row(records[i], parents[i], offset));
    offset += records[i].samples_ms.size();
    evidence.push_back(records[i].evidence.c_str());
    sources.push_back(records[i].source.c_str());
    failed_cases.push_back(records[i].failed_case.c_str());
    ptx.push_back(records[i].ptx.c_str());
  }
  Datatype mem = record_type();
  Dataset ds = write_table(file, "records", mem, packed_copy(mem), rows);
  write_units(ds, kRecordUnits);
  write_samples(file, records);
  write_string_column(file, "evidence", evidence);
  write_string_column(file, "sources", sources);
  write_string_column(file, "failed_cases", failed_cases);
  write_string_column(file, "ptx", ptx);
  write_metrics(file, records);
}

std::vector<EvalRecord> read_records(hid_t file) {
  const LaterMembers later{has_member(file, "records", kTimingNoisy), has_member(file, "records", kSpreadIqr)};
  TableRows<RecordRow> rows(file, "records", record_type(later));
  std::vector<double> samples = read_samples(file);
  std::vector<std::string> evidence = read_string_column(file, "evidence");
  std::vector<std::string> sources = read_string_column(file, "sources");
  require_rows("evidence", evidence.size(), "records", rows.size());
  require_rows("sources", sources.size(), "records", rows.size());
  std::vector<std::string> failed_cases;  // added later: older files have none
  if (has_link(file, "failed_cases")) {
    failed_cases = read_string_column(file, "failed_cases");
    require_rows("failed_cases", failed_cases.size(), "records", rows.size());
  }
  std::vector<std::string> ptx;  // added later still: older files have none
  if (has_link(file, "ptx")) {
    ptx = read_string_column(file, "ptx");
    require_rows("ptx", ptx.size(), "records", rows.size());
  }
  std::vector<EvalRecord> records;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    records.push_back(from_row(rows.rows()[i], samples));
    if (!later.time_spread_iqr) records.back().time_spread_iqr = interquartile_spread_rel(records.back().samples_ms);
    records.back().evidence = std::move(evidence[i]);
    records.back().source = std::move(sources[i]);
    if (!failed_cases.empty()) records.back().failed_case = std::move(failed_cases[i]);
    if (!ptx.empty()) records.back().ptx = std::move(ptx[i]);
  }
  read_metrics(file, records);
  return records;
}

}  // namespace kforge::jobs::h5
