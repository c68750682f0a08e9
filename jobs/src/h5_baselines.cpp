// /baselines: the reference timings measured in the same run as the candidates.
#include "detail/h5_records.hpp"
#include "detail/h5_table.hpp"

namespace kforge::jobs::h5 {
namespace {

struct BaselineRow {
  const char* name;
  double time_median_ms;
  double time_min_ms;
  std::int32_t sample_count;
  const char* host;
  std::int32_t task;
};

Datatype baseline_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(BaselineRow))));
  Datatype str = vlen_string_type();
  KFORGE_MEMBER(t, BaselineRow, name, str);
  KFORGE_MEMBER(t, BaselineRow, time_median_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, BaselineRow, time_min_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, BaselineRow, sample_count, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, BaselineRow, host, str);
  KFORGE_MEMBER(t, BaselineRow, task, H5T_NATIVE_INT32);
  return t;
}

}  // namespace

void write_baselines(hid_t file, const std::vector<Baseline>& baselines) {
  std::vector<BaselineRow> rows;
  for (const auto& b : baselines)
    rows.push_back({b.name.c_str(), b.time_median_ms, b.time_min_ms, b.sample_count, b.host.c_str(), b.task});
  Datatype mem = baseline_type();
  Dataset ds = write_table(file, "baselines", mem, packed_copy(mem), rows, TableLayout{.chunk_rows = 64});
  write_units(ds, {{"time_median_ms", "ms"}, {"time_min_ms", "ms"}, {"sample_count", "1"}});
}

std::vector<Baseline> read_baselines(hid_t file) {
  TableRows<BaselineRow> rows(file, "baselines", baseline_type());
  std::vector<Baseline> baselines;
  for (const auto& row : rows.rows())
    baselines.push_back({text_or_empty(row.name), row.time_median_ms, row.time_min_ms, row.sample_count,
                         text_or_empty(row.host), row.task});
  return baselines;
}

}  // namespace kforge::jobs::h5
