// Generation files: immutable once written; the archive the next generation is bred from.
#include <cstdio>
#include <stdexcept>

#include "detail/archive_file.hpp"
#include "detail/durable_file.hpp"
#include "detail/h5_generation_tables.hpp"
#include "detail/h5_parameters.hpp"
#include "detail/h5_records.hpp"

namespace kforge::jobs {
namespace {

void write_generation_contents(hid_t file, const Generation& g) {
  detail::write_provenance(file, g.provenance, "generation");
  h5::write_attr(file, "generation", static_cast<long long>(g.generation));
  h5::write_records(file, g.records);
  h5::write_parameter_table(file, g.records);  // typed columns of the records' genomes, for pandas
  h5::write_baselines(file, g.baselines);
  h5::write_candidates(file, g.candidates);
  h5::write_population(file, g.population);
  h5::write_learning(file, g);
}

Generation read_generation_contents(hid_t file) {
  Generation g;
  g.provenance = detail::read_provenance(file);
  g.generation = static_cast<int>(h5::read_int_attr(file, "generation"));
  g.records = h5::read_records(file);
  g.baselines = h5::read_baselines(file);
  g.candidates = h5::read_candidates(file);
  g.population = h5::read_population(file);
  h5::read_learning(file, g);
  return g;
}

}  // namespace

void write_generation(const std::filesystem::path& path, const Generation& g) {
  detail::with_file_context(path, "writing generation file", [&] {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) throw std::runtime_error("already exists; generation files are immutable");
    auto tmp = detail::temp_path_for(path);
    detail::TempFileGuard guard(tmp);
    h5::File file = detail::create_archive_file(tmp);
    write_generation_contents(file, g);
    detail::flush_and_close(file);
    detail::publish_new(tmp, path);  // link(): refuses atomically if another writer got there first
    guard.release();
  });
}

Generation read_generation(const std::filesystem::path& path, const FileExpectation& expected) {
  Generation g;
  detail::with_file_context(path, "reading generation file", [&] {
    if (std::filesystem::exists(path)) detail::check_seal(path, expected);  // first: before HDF5 parses it
    h5::File file = detail::open_archive_file(path, "generation");
    detail::check_place(file, path, "generation", expected);
    g = read_generation_contents(file);
  });
  return g;
}

std::string generation_file_name(int generation) {
  if (generation < 0) throw std::invalid_argument("generation number must not be negative");
  char name[32];
  std::snprintf(name, sizeof name, "gen-%04d.h5", generation);
  return name;
}

}  // namespace kforge::jobs
