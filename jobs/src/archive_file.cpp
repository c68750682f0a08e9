// Shared open/create/validate logic of shard, generation and campaign files (detail/archive_file.hpp).
#include "detail/archive_file.hpp"

#include <stdexcept>

#include "detail/durable_file.hpp"
#include "detail/h5_digest.hpp"

namespace kforge::jobs::detail {
namespace {

h5::PropList strong_close_access() {
  // Strong close: H5Fclose also closes anything still open, so "closed" really means "all written".
  h5::PropList fapl(KFORGE_H5_CHECK(H5Pcreate(H5P_FILE_ACCESS)));
  KFORGE_H5_CHECK(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG));
  return fapl;
}

h5::PropList checksummed_create_access() {
  // The 1.8 file format (superblock 2, object header 2) checksums every piece of metadata, so bytes changed in a
  // header or B-tree are refused on open; HDF5 1.8 and later (h5py, HDFView) still read it.
  h5::PropList fapl = strong_close_access();
  KFORGE_H5_CHECK(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18));
  return fapl;
}

void check_readable_hdf5(const std::filesystem::path& path) {
  if (is_temp_path(path))
    throw std::runtime_error("is a temporary file left by an interrupted write, not a finished archive file");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw std::runtime_error("no such file");
  h5::silence_default_error_printer();
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw std::runtime_error("not an HDF5 file (truncated, partially written or another format)");
}

void check_kind_and_schema(hid_t file, const std::string& kind) {
  if (!h5::has_attr(file, "kind")) throw std::runtime_error("no root attribute 'kind': not a kforge archive file");
  std::string found = h5::read_string_attr(file, "kind");
  if (found != kind) throw std::runtime_error("is a kforge '" + found + "' file, expected a '" + kind + "' file");
  long long schema = h5::read_int_attr(file, "schema_version");
  if (schema > kSchemaVersion)
    throw std::runtime_error("schema_version " + std::to_string(schema) + " is newer than this kforge reads (" +
                             std::to_string(kSchemaVersion) + "); update kforge");
  if (schema < 1) throw std::runtime_error("invalid schema_version " + std::to_string(schema));
  if (schema >= 2) h5::check_content_digest(file);  // schema 1 files carry no digest (docs/archive-schema.md)
}

}  // namespace

h5::File create_archive_file(const std::filesystem::path& tmp) {
  h5::PropList fapl = checksummed_create_access();
  return h5::File(KFORGE_H5_CHECK(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl)));
}

void flush_and_close(h5::File& file) {
  h5::write_content_digest(file);  // last: it covers every attribute and dataset written before
  KFORGE_H5_CHECK(H5Fflush(file, H5F_SCOPE_GLOBAL));
  file.close();
}

void write_provenance(hid_t file, const Provenance& p, const std::string& kind) {
  h5::write_attr(file, "creator", p.creator);
  h5::write_attr(file, "version", p.version);
  h5::write_attr(file, "schema_version", static_cast<long long>(p.schema_version));
  h5::write_attr(file, "created", p.created);
  h5::write_attr(file, "config_hash", p.config_hash);
  h5::write_attr(file, "host", p.host);
  h5::write_attr(file, "campaign", p.campaign);
  h5::write_attr(file, "campaign_id", p.campaign_id);
  h5::write_attr(file, "kind", kind);
}

Provenance read_provenance(hid_t file) {
  Provenance p;
  p.creator = h5::read_string_attr(file, "creator");
  p.version = h5::read_string_attr(file, "version");
  p.schema_version = static_cast<int>(h5::read_int_attr(file, "schema_version"));
  p.created = h5::read_string_attr(file, "created");
  p.config_hash = h5::read_string_attr(file, "config_hash");
  p.host = h5::read_string_attr(file, "host");
  p.campaign = h5::read_string_attr(file, "campaign");
  if (h5::has_attr(file, "campaign_id")) p.campaign_id = h5::read_string_attr(file, "campaign_id");  // schema 2
  return p;
}

h5::File open_archive_file(const std::filesystem::path& path, const std::string& kind) {
  check_readable_hdf5(path);
  h5::PropList fapl = strong_close_access();
  h5::File file(KFORGE_H5_CHECK(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl)));
  check_kind_and_schema(file, kind);
  return file;
}

void with_file_context(const std::filesystem::path& path, const std::string& action,
                       const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + action + ": " + e.what());
  }
}

}  // namespace kforge::jobs::detail
