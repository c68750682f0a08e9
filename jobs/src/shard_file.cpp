// Task shards: what one array task produced. Root attributes say which task; tables hold the records.
#include <stdexcept>

#include "detail/archive_file.hpp"
#include "detail/durable_file.hpp"
#include "detail/h5_records.hpp"

namespace kforge::jobs {
namespace {

void write_shard_contents(hid_t file, const Shard& s) {
  detail::write_provenance(file, s.provenance, "shard");
  h5::write_attr(file, "generation", static_cast<long long>(s.generation));
  h5::write_attr(file, "island", static_cast<long long>(s.island));
  h5::write_attr(file, "task", static_cast<long long>(s.task));
  h5::write_attr(file, "target", s.target);
  h5::write_records(file, s.records);
  h5::write_baselines(file, s.baselines);
}

Shard read_shard_contents(hid_t file) {
  Shard s;
  s.provenance = detail::read_provenance(file);
  s.generation = static_cast<int>(h5::read_int_attr(file, "generation"));
  s.island = static_cast<int>(h5::read_int_attr(file, "island"));
  s.task = static_cast<int>(h5::read_int_attr(file, "task"));
  s.target = h5::read_string_attr(file, "target");
  s.records = h5::read_records(file);
  s.baselines = h5::read_baselines(file);
  return s;
}

}  // namespace

void write_shard(const std::filesystem::path& path, const Shard& s) {
  detail::with_file_context(path, "writing shard", [&] {
    auto tmp = detail::temp_path_for(path);
    detail::TempFileGuard guard(tmp);
    h5::File file = detail::create_archive_file(tmp);
    write_shard_contents(file, s);
    detail::flush_and_close(file);
    detail::publish_replacing(tmp, path);  // a re-run task replaces its earlier shard whole
    guard.release();
  });
}

Shard read_shard(const std::filesystem::path& path) {
  Shard s;
  detail::with_file_context(path, "reading shard", [&] {
    h5::File file = detail::open_archive_file(path, "shard");
    s = read_shard_contents(file);
  });
  return s;
}

}  // namespace kforge::jobs
