// Error capture, string types and attributes for the HDF5 layer (detail/h5.hpp).
#include "detail/h5.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace kforge::jobs::h5 {
namespace {

herr_t append_error(unsigned depth, const H5E_error2_t* err, void* out) {
  auto& text = *static_cast<std::string*>(out);
  text += depth == 0 ? "" : "; ";
  std::string desc = err->desc ? err->desc : "?";
  std::replace(desc.begin(), desc.end(), '\n', ' ');  // keep the exception message on one line
  text += std::string(err->func_name ? err->func_name : "?") + ": " + desc;
  return 0;
}

std::string current_error_stack() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, append_error, &text);
  H5Eclear2(H5E_DEFAULT);
  return text.empty() ? "no HDF5 error stack" : text;
}

}  // namespace

void silence_default_error_printer() {
  static const bool silenced = (H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr), true);
  (void)silenced;
}

void throw_error(const char* call, const char* file, int line) {
  std::string stack = current_error_stack();  // first: any later HDF5 call would clear it
  throw std::runtime_error(std::string("HDF5 call failed at ") + file + ":" + std::to_string(line) + ": " + call +
                           " (" + stack + ")");
}

Datatype vlen_string_type() {
  Datatype type(KFORGE_H5_CHECK(H5Tcopy(H5T_C_S1)));
  KFORGE_H5_CHECK(H5Tset_size(type, H5T_VARIABLE));
  KFORGE_H5_CHECK(H5Tset_cset(type, H5T_CSET_UTF8));
  return type;
}

void write_attr(hid_t obj, const std::string& name, const std::string& value) {
  Datatype type = vlen_string_type();
  Dataspace scalar(KFORGE_H5_CHECK(H5Screate(H5S_SCALAR)));
  Attribute attr(KFORGE_H5_CHECK(H5Acreate2(obj, name.c_str(), type, scalar, H5P_DEFAULT, H5P_DEFAULT)));
  const char* text = value.c_str();
  KFORGE_H5_CHECK(H5Awrite(attr, type, &text));
}

void write_attr(hid_t obj, const std::string& name, long long value) {
  Dataspace scalar(KFORGE_H5_CHECK(H5Screate(H5S_SCALAR)));
  Attribute attr(KFORGE_H5_CHECK(H5Acreate2(obj, name.c_str(), H5T_STD_I64LE, scalar, H5P_DEFAULT, H5P_DEFAULT)));
  KFORGE_H5_CHECK(H5Awrite(attr, H5T_NATIVE_LLONG, &value));
}

bool has_attr(hid_t obj, const std::string& name) { return KFORGE_H5_CHECK(H5Aexists(obj, name.c_str())) > 0; }

bool has_link(hid_t loc, const std::string& name) {
  return KFORGE_H5_CHECK(H5Lexists(loc, name.c_str(), H5P_DEFAULT)) > 0;
}

namespace {

// Attributes are read into one value: a damaged or forged file whose attribute holds several (or none) would
// have H5Aread write past it (found by tests/fuzz/fuzz_shard).
void require_one_value(hid_t attr, const std::string& name) {
  Dataspace space(KFORGE_H5_CHECK(H5Aget_space(attr)));
  const hssize_t count = KFORGE_H5_CHECK(H5Sget_simple_extent_npoints(space));
  if (count != 1)
    throw std::runtime_error("attribute '" + name + "' holds " + std::to_string(count) + " values, expected one");
}

}  // namespace

std::string read_string_attr(hid_t obj, const std::string& name) {
  if (!has_attr(obj, name)) throw std::runtime_error("attribute '" + name + "' is missing");
  Attribute attr(KFORGE_H5_CHECK(H5Aopen(obj, name.c_str(), H5P_DEFAULT)));
  require_one_value(attr, name);
  Datatype stored(KFORGE_H5_CHECK(H5Aget_type(attr)));
  if (H5Tget_class(stored) != H5T_STRING || H5Tis_variable_str(stored) <= 0)
    throw std::runtime_error("attribute '" + name + "' is not a variable-length string");
  Datatype type = vlen_string_type();
  char* text = nullptr;
  KFORGE_H5_CHECK(H5Aread(attr, type, &text));
  std::unique_ptr<char, herr_t (*)(void*)> owned(text, H5free_memory);
  return text ? std::string(text) : std::string();
}

long long read_int_attr(hid_t obj, const std::string& name) {
  if (!has_attr(obj, name)) throw std::runtime_error("attribute '" + name + "' is missing");
  Attribute attr(KFORGE_H5_CHECK(H5Aopen(obj, name.c_str(), H5P_DEFAULT)));
  require_one_value(attr, name);
  Datatype stored(KFORGE_H5_CHECK(H5Aget_type(attr)));
  if (H5Tget_class(stored) != H5T_INTEGER) throw std::runtime_error("attribute '" + name + "' is not an integer");
  long long value = 0;
  KFORGE_H5_CHECK(H5Aread(attr, H5T_NATIVE_LLONG, &value));
  return value;
}

void write_double_attr(hid_t obj, const std::string& name, double value) {
  Dataspace scalar(KFORGE_H5_CHECK(H5Screate(H5S_SCALAR)));
  Attribute attr(KFORGE_H5_CHECK(H5Acreate2(obj, name.c_str(), H5T_NATIVE_DOUBLE, scalar, H5P_DEFAULT, H5P_DEFAULT)));
  KFORGE_H5_CHECK(H5Awrite(attr, H5T_NATIVE_DOUBLE, &value));
}

double read_double_attr(hid_t obj, const std::string& name) {
  if (!has_attr(obj, name)) throw std::runtime_error("attribute '" + name + "' is missing");
  Attribute attr(KFORGE_H5_CHECK(H5Aopen(obj, name.c_str(), H5P_DEFAULT)));
  require_one_value(attr, name);
  Datatype stored(KFORGE_H5_CHECK(H5Aget_type(attr)));
  if (H5Tget_class(stored) != H5T_FLOAT) throw std::runtime_error("attribute '" + name + "' is not a number");
  double value = 0.0;
  KFORGE_H5_CHECK(H5Aread(attr, H5T_NATIVE_DOUBLE, &value));
  return value;
}

}  // namespace kforge::jobs::h5
