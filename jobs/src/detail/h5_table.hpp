#pragma once
// 1-D tables in HDF5: chunked datasets with unlimited max size, so an empty table is a valid zero-row dataset
// and h5py / pandas read it back as empty.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/h5.hpp"

namespace kforge::jobs::h5 {

struct TableLayout {
  hsize_t chunk_rows = 256;
  bool compress = false;  // deflate (level 4) with byte shuffle; pays off for numeric columns like /samples
};

// Creates /name with rows.size() rows of file_type and writes them (memory layout mem_type).
Dataset create_table(hid_t loc, const std::string& name, hid_t file_type, std::size_t rows, TableLayout layout);
Dataset open_table(hid_t loc, const std::string& name);  // throws "dataset '/name' is missing"
// Whether the compound table `table` in loc has a member of that name (false also when the table is missing:
// open_table then reports that). Columns added after a table was first written are read only where present.
bool has_member(hid_t loc, const char* table, const char* member);
std::size_t row_count(hid_t dataset);

// Compound file type: the memory type with padding removed.
Datatype packed_copy(hid_t mem_type);
void insert_member(hid_t compound, const char* name, std::size_t offset, hid_t member_type);
// Adds Row::field to a compound type under the field's own name, so C++ and file names cannot drift apart.
#define KFORGE_MEMBER(type, Row, field, h5type) \
  ::kforge::jobs::h5::insert_member(type, #field, offsetof(Row, field), h5type)

template <class Row>
Dataset write_table(hid_t loc, const std::string& name, hid_t mem_type, hid_t file_type, const std::vector<Row>& rows,
                    TableLayout layout = {}) {
  Dataset ds = create_table(loc, name, file_type, rows.size(), layout);
  if (!rows.empty()) KFORGE_H5_CHECK(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()));
  return ds;
}

// Rows read from a table; frees the variable-length strings HDF5 allocated for them when destroyed.
template <class Row>
class TableRows {
 public:
  TableRows(hid_t loc, const std::string& name, Datatype mem_type) : type_(std::move(mem_type)) {
    Dataset ds = open_table(loc, name);
    rows_.resize(row_count(ds));
    if (rows_.empty()) return;
    hsize_t n = rows_.size();
    space_ = Dataspace(KFORGE_H5_CHECK(H5Screate_simple(1, &n, nullptr)));
    KFORGE_H5_CHECK(H5Dread(ds, type_, space_, H5S_ALL, H5P_DEFAULT, rows_.data()));
    read_ = true;
  }
  ~TableRows() {
    if (read_) H5Dvlen_reclaim(type_, space_, H5P_DEFAULT, rows_.data());
  }
  TableRows(const TableRows&) = delete;
  TableRows& operator=(const TableRows&) = delete;

  const std::vector<Row>& rows() const { return rows_; }
  std::size_t size() const { return rows_.size(); }

 private:
  Datatype type_;
  Dataspace space_;
  std::vector<Row> rows_;
  bool read_ = false;
};

// Variable-length string columns kept beside a compound table (/evidence, /sources, ...).
void write_string_column(hid_t loc, const std::string& name, const std::vector<const char*>& values);
std::vector<std::string> read_string_column(hid_t loc, const std::string& name);

// Parent ids in one string column: "id1,id2". Throws std::invalid_argument for an empty id or one with ','.
std::string join_ids(const std::vector<std::string>& ids, const std::string& owner);
std::vector<std::string> split_ids(const std::string& joined);

inline std::string text_or_empty(const char* s) { return s ? std::string(s) : std::string(); }

// Throws if a column does not have one row per row of the table it belongs to.
void require_rows(const std::string& column, std::size_t got, const std::string& table, std::size_t expected);

void write_units(hid_t dataset, const std::vector<std::pair<std::string, std::string>>& field_units);

}  // namespace kforge::jobs::h5
