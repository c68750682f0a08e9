// Canonical content digest of an archive file (detail/h5_digest.hpp). The byte stream hashed is, in order:
//   "kforge-content-v2\n", then "NAME=VALUE\n" for each binding attribute of the file's kind (integers in
//   decimal; an absent attribute hashes as "NAME=\n"), then for every dataset, by path sorted bytewise:
//   "dataset=PATH\nrows=N\n" and, for a compound, per member in stored order "member=NAME\n" and the column;
//   otherwise the column. A column is each row's value: a variable-length string as its byte length
//   (uint64 little-endian) and its bytes, a number or enum as its native little-endian bytes.
#include "detail/h5_digest.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "detail/h5.hpp"
#include "detail/sha256.hpp"

namespace kforge::jobs::h5 {
namespace {

// Which root attributes bind a file of each kind to its campaign and its place in it.
std::vector<std::string> binding_attributes(const std::string& kind) {
  std::vector<std::string> names = {"kind", "campaign_id", "campaign", "config_hash", "schema_version"};
  if (kind == "shard") names.insert(names.end(), {"generation", "island", "task", "target"});
  if (kind == "generation") names.push_back("generation");
  if (kind == "campaign") names.push_back("generations");
  return names;
}

std::string attribute_text(hid_t file, const std::string& name) {
  if (!has_attr(file, name)) return "";
  Attribute attr(KFORGE_H5_CHECK(H5Aopen(file, name.c_str(), H5P_DEFAULT)));
  Datatype stored(KFORGE_H5_CHECK(H5Aget_type(attr)));
  if (H5Tget_class(stored) == H5T_INTEGER) return std::to_string(read_int_attr(file, name));
  return read_string_attr(file, name);
}

herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t* info, void* out) {
  if (info->type != H5L_TYPE_HARD) return 0;  // external links (campaign.h5) point at other files
  hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj < 0) return -1;
  if (H5Iget_type(obj) == H5I_DATASET) static_cast<std::vector<std::string>*>(out)->push_back(name);
  H5Oclose(obj);
  return 0;
}

void hash_value(detail::Sha256& h, hid_t type, const unsigned char* value) {
  if (H5Tis_variable_str(type) > 0) {
    const char* text = nullptr;
    std::memcpy(&text, value, sizeof text);
    const std::uint64_t length = text ? std::strlen(text) : 0;
    unsigned char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(length >> (8 * i));
    h.update(std::string_view(reinterpret_cast<const char*>(le), 8));
    if (text) h.update(std::string_view(text, length));
    return;
  }
  const H5T_class_t cls = H5Tget_class(type);
  if (cls != H5T_INTEGER && cls != H5T_FLOAT && cls != H5T_ENUM)
    throw std::runtime_error("dataset member of a type the content digest does not cover");
  h.update(std::string_view(reinterpret_cast<const char*>(value), H5Tget_size(type)));
}

void hash_dataset(detail::Sha256& h, hid_t file, const std::string& name) {
  Dataset ds(KFORGE_H5_CHECK(H5Dopen2(file, name.c_str(), H5P_DEFAULT)));
  Datatype stored(KFORGE_H5_CHECK(H5Dget_type(ds)));
  Datatype mem(KFORGE_H5_CHECK(H5Tget_native_type(stored, H5T_DIR_ASCEND)));
  Dataspace space(KFORGE_H5_CHECK(H5Dget_space(ds)));
  const auto rows = static_cast<std::size_t>(KFORGE_H5_CHECK(H5Sget_simple_extent_npoints(space)));
  const std::size_t row_size = H5Tget_size(mem);
  h.update("dataset=" + name + "\nrows=" + std::to_string(rows) + "\n");
  std::vector<unsigned char> buffer(rows * row_size);
  if (rows > 0) KFORGE_H5_CHECK(H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()));
  try {
    if (H5Tget_class(mem) == H5T_COMPOUND) {
      const int members = KFORGE_H5_CHECK(H5Tget_nmembers(mem));
      for (unsigned m = 0; m < static_cast<unsigned>(members); ++m) {
        char* member_name = H5Tget_member_name(mem, m);
        h.update(std::string("member=") + member_name + "\n");
        H5free_memory(member_name);
        Datatype member(KFORGE_H5_CHECK(H5Tget_member_type(mem, m)));
        const std::size_t offset = H5Tget_member_offset(mem, m);
        for (std::size_t r = 0; r < rows; ++r) hash_value(h, member, buffer.data() + r * row_size + offset);
      }
    } else {
      for (std::size_t r = 0; r < rows; ++r) hash_value(h, mem, buffer.data() + r * row_size);
    }
  } catch (...) {
    if (rows > 0) H5Dvlen_reclaim(mem, space, H5P_DEFAULT, buffer.data());
    throw;
  }
  if (rows > 0) H5Dvlen_reclaim(mem, space, H5P_DEFAULT, buffer.data());
}

}  // namespace

std::string content_digest(hid_t file) {
  detail::Sha256 h;
  h.update("kforge-content-v2\n");
  const std::string kind = has_attr(file, "kind") ? read_string_attr(file, "kind") : "";
  for (const auto& name : binding_attributes(kind)) h.update(name + "=" + attribute_text(file, name) + "\n");
  std::vector<std::string> datasets;
  KFORGE_H5_CHECK(H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &datasets));
  std::sort(datasets.begin(), datasets.end());
  for (const auto& name : datasets) hash_dataset(h, file, name);
  return detail::to_hex(h.finish());
}

void write_content_digest(hid_t file) { write_attr(file, "content_sha256", content_digest(file)); }

void check_content_digest(hid_t file) {
  if (!has_attr(file, "content_sha256"))
    throw std::runtime_error("attribute 'content_sha256' is missing: the file's content cannot be checked");
  const std::string stored = read_string_attr(file, "content_sha256");
  const std::string computed = content_digest(file);
  if (stored != computed)
    throw std::runtime_error("content digest mismatch: the file was changed after it was written (content_sha256 " +
                             stored.substr(0, 16) + "..., contents hash to " + computed.substr(0, 16) + "...)");
}

}  // namespace kforge::jobs::h5
