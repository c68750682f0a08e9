// /candidates, /candidate_sources, /lineage and /population of a generation file.
#include "detail/h5_generation_tables.hpp"

#include <stdexcept>

#include "detail/h5_table.hpp"

namespace kforge::jobs::h5 {
namespace {

struct CandidateRow {
  const char* id;
  const char* family;
  const char* backend;
  const char* params;  // Genome::to_text()
  const char* compile_flags;
  const char* parents;  // ids joined with ','
  const char* op;
  std::int32_t generation;
  std::int32_t island;
};

// One row per (child, parent) edge: the family tree without parsing the joined parents column.
struct LineageRow {
  const char* child_id;
  const char* parent_id;
  const char* op;
  std::int32_t generation;
};

struct PopulationRow {
  std::int32_t island;
  const char* candidate_id;
  double fitness_ms;
};

Datatype candidate_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(CandidateRow))));
  Datatype str = vlen_string_type();
  KFORGE_MEMBER(t, CandidateRow, id, str);
  KFORGE_MEMBER(t, CandidateRow, family, str);
  KFORGE_MEMBER(t, CandidateRow, backend, str);
  KFORGE_MEMBER(t, CandidateRow, params, str);
  KFORGE_MEMBER(t, CandidateRow, compile_flags, str);
  KFORGE_MEMBER(t, CandidateRow, parents, str);
  KFORGE_MEMBER(t, CandidateRow, op, str);
  KFORGE_MEMBER(t, CandidateRow, generation, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, CandidateRow, island, H5T_NATIVE_INT32);
  return t;
}

Datatype lineage_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(LineageRow))));
  Datatype str = vlen_string_type();
  KFORGE_MEMBER(t, LineageRow, child_id, str);
  KFORGE_MEMBER(t, LineageRow, parent_id, str);
  KFORGE_MEMBER(t, LineageRow, op, str);
  KFORGE_MEMBER(t, LineageRow, generation, H5T_NATIVE_INT32);
  return t;
}

Datatype population_type() {
  Datatype t(KFORGE_H5_CHECK(H5Tcreate(H5T_COMPOUND, sizeof(PopulationRow))));
  KFORGE_MEMBER(t, PopulationRow, island, H5T_NATIVE_INT32);
  KFORGE_MEMBER(t, PopulationRow, candidate_id, vlen_string_type());
  KFORGE_MEMBER(t, PopulationRow, fitness_ms, H5T_NATIVE_DOUBLE);
  return t;
}

void write_lineage(hid_t file, const std::vector<Candidate>& candidates) {
  std::vector<LineageRow> rows;
  for (const auto& c : candidates)
    for (const auto& parent : c.parents) rows.push_back({c.id.c_str(), parent.c_str(), c.op.c_str(), c.generation});
  Datatype mem = lineage_type();
  write_table(file, "lineage", mem, packed_copy(mem), rows);
}

}  // namespace

void write_candidates(hid_t file, const std::vector<Candidate>& candidates) {
  std::vector<std::string> params, parents;  // sized up front: rows point into these strings
  params.reserve(candidates.size());
  parents.reserve(candidates.size());
  std::vector<CandidateRow> rows;
  std::vector<const char*> sources;
  for (const auto& c : candidates) {
    params.push_back(c.genome.to_text());
    parents.push_back(join_ids(c.parents, "candidate " + c.id));
    rows.push_back({c.id.c_str(), c.family.c_str(), c.backend.c_str(), params.back().c_str(), c.compile_flags.c_str(),
                    parents.back().c_str(), c.op.c_str(), c.generation, c.island});
    sources.push_back(c.source.c_str());
  }
  Datatype mem = candidate_type();
  write_table(file, "candidates", mem, packed_copy(mem), rows);
  write_string_column(file, "candidate_sources", sources);
  write_lineage(file, candidates);
}

std::vector<Candidate> read_candidates(hid_t file) {
  TableRows<CandidateRow> rows(file, "candidates", candidate_type());
  std::vector<std::string> sources = read_string_column(file, "candidate_sources");
  require_rows("candidate_sources", sources.size(), "candidates", rows.size());
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CandidateRow& row = rows.rows()[i];
    Candidate c;
    c.id = text_or_empty(row.id);
    c.family = text_or_empty(row.family);
    c.backend = text_or_empty(row.backend);
    c.genome = Genome::from_text(text_or_empty(row.params));
    c.source = std::move(sources[i]);
    c.compile_flags = text_or_empty(row.compile_flags);
    c.parents = split_ids(text_or_empty(row.parents));
    c.op = text_or_empty(row.op);
    c.generation = row.generation;
    c.island = row.island;
    candidates.push_back(std::move(c));
  }
  return candidates;
}

void write_population(hid_t file, const std::vector<PopulationEntry>& population) {
  std::vector<PopulationRow> rows;
  for (const auto& p : population) rows.push_back({p.island, p.candidate_id.c_str(), p.fitness_ms});
  Datatype mem = population_type();
  Dataset ds = write_table(file, "population", mem, packed_copy(mem), rows);
  write_units(ds, {{"fitness_ms", "ms"}});
}

std::vector<PopulationEntry> read_population(hid_t file) {
  TableRows<PopulationRow> rows(file, "population", population_type());
  std::vector<PopulationEntry> population;
  for (const auto& row : rows.rows())
    population.push_back({row.island, text_or_empty(row.candidate_id), row.fitness_ms});
  return population;
}

}  // namespace kforge::jobs::h5
