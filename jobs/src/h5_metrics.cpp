// /metrics: the named figures of records beyond their time (an engine's serving figures and where its time went),
// in long form -- one row per (record, figure) -- so that pandas pivots it and a kernel campaign's table is empty.
#include <cstdint>

#include "detail/h5_records.hpp"
#include "detail/h5_table.hpp"

namespace kforge::jobs::h5 {
namespace {

struct MetricRow {
  std::uint64_t record;  // row of /records this figure belongs to
  const char* candidate_id;
  const char* name;
  const char* unit;
  double value;
};

Datatype metric_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(MetricRow))));
  Datatype str = vlen_string_type();
  KFORGE_MEMBER(t, MetricRow, record, H5T_NATIVE_UINT64);
  KFORGE_MEMBER(t, MetricRow, candidate_id, str);
  KFORGE_MEMBER(t, MetricRow, name, str);
  KFORGE_MEMBER(t, MetricRow, unit, str);
  KFORGE_MEMBER(t, MetricRow, value, H5T_NATIVE_DOUBLE);
  return t;
}

}  // namespace

void write_metrics(hid_t file, const std::vector<EvalRecord>& records) {
  std::vector<MetricRow> rows;
  for (std::size_t i = 0; i < records.size(); ++i)
    for (const Metric& m : records[i].metrics)
      rows.push_back({i, records[i].candidate_id.c_str(), m.name.c_str(), m.unit.c_str(), m.value});
  Datatype mem = metric_type();
  Dataset ds = write_table(file, "metrics", mem, packed_copy(mem), rows);
  write_attr(ds, "layout", "one row per (record, figure); unit per row");
}

void read_metrics(hid_t file, std::vector<EvalRecord>& records) {
  if (!has_link(file, "metrics")) return;  // files written before engines existed
  TableRows<MetricRow> rows(file, "metrics", metric_type());
  for (const MetricRow& row : rows.rows()) {
    if (row.record >= records.size())
      throw std::runtime_error("/metrics row names record " + std::to_string(row.record) + " of " +
                               std::to_string(records.size()));
    EvalRecord& r = records[row.record];
    if (text_or_empty(row.candidate_id) != r.candidate_id)
      throw std::runtime_error("/metrics row for record " + std::to_string(row.record) + " names candidate '" +
                               text_or_empty(row.candidate_id) + "', the record is '" + r.candidate_id + "'");
    r.metrics.push_back({text_or_empty(row.name), text_or_empty(row.unit), row.value});
  }
}

}  // namespace kforge::jobs::h5
