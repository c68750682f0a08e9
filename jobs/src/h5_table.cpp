// Creation, opening and string columns of 1-D tables (detail/h5_table.hpp).
#include "detail/h5_table.hpp"

#include <algorithm>

namespace kforge::jobs::h5 {

Dataset create_table(hid_t loc, const std::string& name, hid_t file_type, std::size_t rows, TableLayout layout) {
  hsize_t dims = rows;
  hsize_t max_dims = H5S_UNLIMITED;
  Dataspace space(KFORGE_H5_CHECK(H5Screate_simple(1, &dims, &max_dims)));
  PropList create(KFORGE_H5_CHECK(H5Pcreate(H5P_DATASET_CREATE)));
  hsize_t chunk = std::clamp<hsize_t>(rows, 1, layout.chunk_rows);
  KFORGE_H5_CHECK(H5Pset_chunk(create, 1, &chunk));
  if (layout.compress) {
    KFORGE_H5_CHECK(H5Pset_shuffle(create));
    KFORGE_H5_CHECK(H5Pset_deflate(create, 4));
  }
  // Last in the pipeline: a checksum of each stored chunk, so a chunk changed on disk fails its read
  // ("Fletcher32 checksum") instead of returning altered numbers. HDF5 applies no filter to a dataset of bare
  // variable-length strings (their bytes live in the global heap); the content digest covers those.
  if (KFORGE_H5_CHECK(H5Tis_variable_str(file_type)) <= 0) KFORGE_H5_CHECK(H5Pset_fletcher32(create));
  return Dataset(KFORGE_H5_CHECK(H5Dcreate2(loc, name.c_str(), file_type, space, H5P_DEFAULT, create, H5P_DEFAULT)));
}

Dataset open_table(hid_t loc, const std::string& name) {
  if (KFORGE_H5_CHECK(H5Lexists(loc, name.c_str(), H5P_DEFAULT)) <= 0)
    throw std::runtime_error("dataset '/" + name + "' is missing");
  return Dataset(KFORGE_H5_CHECK(H5Dopen2(loc, name.c_str(), H5P_DEFAULT)));
}

bool has_member(hid_t loc, const char* table, const char* member) {
  if (!has_link(loc, table)) return false;
  Dataset ds = open_table(loc, table);
  Datatype type(KFORGE_H5_CHECK(H5Dget_type(ds)));
  silence_default_error_printer();  // a missing member is an answer here, not an error to print
  return H5Tget_class(type) == H5T_COMPOUND && H5Tget_member_index(type, member) >= 0;
}

std::size_t row_count(hid_t dataset) {
  Dataspace space(KFORGE_H5_CHECK(H5Dget_space(dataset)));
  if (KFORGE_H5_CHECK(H5Sget_simple_extent_ndims(space)) != 1) throw std::runtime_error("table is not 1-D");
  hsize_t dims = 0;
  KFORGE_H5_CHECK(H5Sget_simple_extent_dims(space, &dims, nullptr));
  return static_cast<std::size_t>(dims);
}

Datatype packed_copy(hid_t mem_type) {
  Datatype packed(KFORGE_H5_CHECK(H5Tcopy(mem_type)));
  KFORGE_H5_CHECK(H5Tpack(packed));
  return packed;
}

void insert_member(hid_t compound, const char* name, std::size_t offset, hid_t member_type) {
  KFORGE_H5_CHECK(H5Tinsert(compound, name, offset, member_type));
}

void write_string_column(hid_t loc, const std::string& name, const std::vector<const char*>& values) {
  Datatype type = vlen_string_type();
  write_table(loc, name, type, type, values, TableLayout{.chunk_rows = 64, .compress = false});
}

std::vector<std::string> read_string_column(hid_t loc, const std::string& name) {
  TableRows<const char*> column(loc, name, vlen_string_type());
  std::vector<std::string> out;
  out.reserve(column.size());
  for (const char* s : column.rows()) out.push_back(text_or_empty(s));
  return out;
}

void require_rows(const std::string& column, std::size_t got, const std::string& table, std::size_t expected) {
  if (got != expected)
    throw std::runtime_error("dataset '/" + column + "' has " + std::to_string(got) + " rows but '/" + table +
                             "' has " + std::to_string(expected));
}

std::string join_ids(const std::vector<std::string>& ids, const std::string& owner) {
  std::string joined;
  for (const auto& id : ids) {
    if (id.empty() || id.find(',') != std::string::npos)
      throw std::invalid_argument(owner + ": parent id '" + id + "' is empty or contains ','");
    joined += (joined.empty() ? "" : ",") + id;
  }
  return joined;
}

std::vector<std::string> split_ids(const std::string& joined) {
  std::vector<std::string> ids;
  for (std::size_t start = 0; start < joined.size();) {
    std::size_t comma = std::min(joined.find(',', start), joined.size());
    ids.push_back(joined.substr(start, comma - start));
    start = comma + 1;
  }
  return ids;
}

void write_units(hid_t dataset, const std::vector<std::pair<std::string, std::string>>& field_units) {
  for (const auto& [field, unit] : field_units) write_attr(dataset, field + ".units", unit);
}

}  // namespace kforge::jobs::h5
