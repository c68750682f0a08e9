// /operator_weights, /lessons/{parameters,operators,failures,summary}, /validation and /search_model of a
// generation file.
// Added after the first files were written: a file without them reads back with them empty.
#include <stdexcept>

#include "detail/h5_generation_tables.hpp"
#include "detail/h5_table.hpp"

namespace kforge::jobs::h5 {
namespace {

struct WeightRow {
  std::int32_t island;
  const char* op;
  double weight;
  std::int32_t children, ok, improved;
};

struct ParameterRow {
  const char* parameter;
  const char* value;
  std::int32_t evaluated, failed;
  double median_ms, best_ms, relative_median;
  double relative, ci_low, ci_high;  // added after schema_version 2 was first written: older files lack them
};

struct OperatorRow {
  const char* op;
  std::int32_t children, ok, improved;
};

struct FailureRow {
  const char* status;
  const char* cause;
  std::int32_t count;
  const char* example_id;
};

struct ValidationRow {
  const char* text;
  std::int32_t added_generation;
  const char* caught_id;
  const char* caught_status;
};

struct ModelRow {
  std::int32_t island;
  const char* target;
  double rank_correlation;
  std::int32_t predictions;
};

Datatype model_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(ModelRow))));
  KFORGE_MEMBER(t, ModelRow, island, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, ModelRow, target, vlen_string_type());
  KFORGE_MEMBER(t, ModelRow, rank_correlation, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, ModelRow, predictions, H5T_NATIVE_INT32);
  return t;
}

Datatype weight_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(WeightRow))));
  KFORGE_MEMBER(t, WeightRow, island, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, WeightRow, op, vlen_string_type());
  KFORGE_MEMBER(t, WeightRow, weight, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, WeightRow, children, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, WeightRow, ok, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, WeightRow, improved, H5T_NATIVE_INT32);
  return t;
}

constexpr const char* kParameterInterval = "ci_high";

Datatype parameter_type(bool with_intervals = true) {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(ParameterRow))));
  KFORGE_MEMBER(t, ParameterRow, parameter, vlen_string_type());
  KFORGE_MEMBER(t, ParameterRow, value, vlen_string_type());
  KFORGE_MEMBER(t, ParameterRow, evaluated, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, ParameterRow, failed, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, ParameterRow, median_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, ParameterRow, best_ms, H5T_NATIVE_DOUBLE);
  KFORGE_MEMBER(t, ParameterRow, relative_median, H5T_NATIVE_DOUBLE);
  if (with_intervals) {
    KFORGE_MEMBER(t, ParameterRow, relative, H5T_NATIVE_DOUBLE);
    KFORGE_MEMBER(t, ParameterRow, ci_low, H5T_NATIVE_DOUBLE);
    KFORGE_MEMBER(t, ParameterRow, ci_high, H5T_NATIVE_DOUBLE);
  }
  return t;
}

Datatype operator_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(OperatorRow))));
  KFORGE_MEMBER(t, OperatorRow, op, vlen_string_type());
  KFORGE_MEMBER(t, OperatorRow, children, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, OperatorRow, ok, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, OperatorRow, improved, H5T_NATIVE_INT32);
  return t;
}

Datatype failure_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(FailureRow))));
  KFORGE_MEMBER(t, FailureRow, status, vlen_string_type());
  KFORGE_MEMBER(t, FailureRow, cause, vlen_string_type());
  KFORGE_MEMBER(t, FailureRow, count, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, FailureRow, example_id, vlen_string_type());
  return t;
}

Datatype validation_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(ValidationRow))));
  KFORGE_MEMBER(t, ValidationRow, text, vlen_string_type());
  KFORGE_MEMBER(t, ValidationRow, added_generation, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, ValidationRow, caught_id, vlen_string_type());
  KFORGE_MEMBER(t, ValidationRow, caught_status, vlen_string_type());
  return t;
}

// Rows of `name` converted by `convert`, or nothing when the (version-1) file lacks the table.
template <class Row, class Out, class Convert>
std::vector<Out> read_optional(hid_t loc, const std::string& name, Datatype type, Convert convert) {
  std::vector<Out> out;
  if (!has_link(loc, name)) return out;
  TableRows<Row> rows(loc, name, std::move(type));
  for (const Row& row : rows.rows()) out.push_back(convert(row));
  return out;
}

template <class Row>
void write_rows(hid_t loc, const std::string& name, Datatype mem, const std::vector<Row>& rows) {
  write_table(loc, name, mem, packed_copy(mem), rows);
}

void write_lessons(hid_t file, const Lessons& l) {
  Group group(KFORGE_H5_CHECK(H5Gcreate2(file, "lessons", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
  std::vector<ParameterRow> parameters;
  for (const auto& p : l.parameters)
    parameters.push_back({p.parameter.c_str(), p.value.c_str(), p.evaluated, p.failed, p.median_ms, p.best_ms,
                          p.relative_median, p.relative, p.ci_low, p.ci_high});
  Datatype parameter_mem = parameter_type();
  Dataset ds = write_table(group, "parameters", parameter_mem, packed_copy(parameter_mem), parameters);
  write_units(ds, {{"median_ms", "ms"},
                   {"best_ms", "ms"},
                   {"relative_median", "1"},
                   {"relative", "1"},
                   {"ci_low", "1"},
                   {"ci_high", "1"}});
  std::vector<OperatorRow> operators;
  for (const auto& o : l.operators) operators.push_back({o.op.c_str(), o.children, o.ok, o.improved});
  write_rows(group, "operators", operator_type(), operators);
  std::vector<FailureRow> failures;
  for (const auto& f : l.failures)
    failures.push_back({f.status.c_str(), f.cause.c_str(), f.count, f.example_id.c_str()});
  write_rows(group, "failures", failure_type(), failures);
  std::vector<const char*> summary;
  for (const auto& s : l.summary) summary.push_back(s.c_str());
  write_string_column(group, "summary", summary);
}

Lessons read_lessons(hid_t file) {
  Lessons l;
  if (!has_link(file, "lessons")) return l;
  Group group(KFORGE_H5_CHECK(H5Gopen2(file, "lessons", H5P_DEFAULT)));
  const bool intervals = has_member(group, "parameters", kParameterInterval);
  l.parameters =
      read_optional<ParameterRow, ParameterLesson>(group, "parameters", parameter_type(intervals), [&](const auto& r) {
        ParameterLesson p{
            text_or_empty(r.parameter), text_or_empty(r.value), r.evaluated, r.failed, r.median_ms, r.best_ms,
            r.relative_median};
        if (intervals) p.relative = r.relative, p.ci_low = r.ci_low, p.ci_high = r.ci_high;
        return p;
      });
  l.operators = read_optional<OperatorRow, OperatorLesson>(group, "operators", operator_type(), [](const auto& r) {
    return OperatorLesson{text_or_empty(r.op), r.children, r.ok, r.improved};
  });
  l.failures = read_optional<FailureRow, FailureLesson>(group, "failures", failure_type(), [](const auto& r) {
    return FailureLesson{text_or_empty(r.status), text_or_empty(r.cause), r.count, text_or_empty(r.example_id)};
  });
  l.summary = read_string_column(group, "summary");
  return l;
}

}  // namespace

void write_learning(hid_t file, const Generation& g) {
  std::vector<WeightRow> weights;
  for (const auto& w : g.operator_weights)
    weights.push_back({w.island, w.op.c_str(), w.weight, w.children, w.ok, w.improved});
  write_rows(file, "operator_weights", weight_type(), weights);
  write_lessons(file, g.lessons);
  std::vector<ValidationRow> validation;
  for (const auto& v : g.validation)
    validation.push_back({v.text.c_str(), v.added_generation, v.caught_id.c_str(), v.caught_status.c_str()});
  write_rows(file, "validation", validation_type(), validation);
  if (g.model_quality.empty()) return;  // evolutionary campaigns have no model: no table
  std::vector<ModelRow> models;
  for (const auto& m : g.model_quality)
    models.push_back({m.island, m.target.c_str(), m.rank_correlation, m.predictions});
  write_rows(file, "search_model", model_type(), models);
}

void read_learning(hid_t file, Generation& g) {
  g.operator_weights =
      read_optional<WeightRow, OperatorWeight>(file, "operator_weights", weight_type(), [](const auto& r) {
        return OperatorWeight{r.island, text_or_empty(r.op), r.weight, r.children, r.ok, r.improved};
      });
  g.lessons = read_lessons(file);
  g.validation = read_optional<ValidationRow, ValidationCase>(file, "validation", validation_type(), [](const auto& r) {
    return ValidationCase{text_or_empty(r.text), r.added_generation, text_or_empty(r.caught_id),
                          text_or_empty(r.caught_status)};
  });
  g.model_quality = read_optional<ModelRow, ModelQualityRow>(file, "search_model", model_type(), [](const auto& r) {
    return ModelQualityRow{r.island, text_or_empty(r.target), r.rank_correlation, r.predictions};
  });
}

}  // namespace kforge::jobs::h5
