#pragma once
// Thin RAII layer over the HDF5 C API. Every call goes through KFORGE_H5_CHECK, which turns a negative return
// into std::runtime_error carrying the source location, the call text and HDF5's own error stack.
#include <hdf5.h>

#include <string>
#include <utility>

namespace kforge::jobs::h5 {

// Stops HDF5 from printing its error stack to stderr; we capture it into the exception instead.
void silence_default_error_printer();

[[noreturn]] void throw_error(const char* call, const char* file, int line);

template <class T>
T checked(T result, const char* call, const char* file, int line) {
  if (result < 0) throw_error(call, file, line);
  return result;
}

// The comma operator sequences the silencing before the call, so a failing call never prints.
#define KFORGE_H5_CHECK(call) \
  (::kforge::jobs::h5::silence_default_error_printer(), ::kforge::jobs::h5::checked((call), #call, __FILE__, __LINE__))

// Owns one hid_t; Close is the matching H5?close. Move-only.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT: handles are passed straight to the C API

  // Closes now and reports failure (e.g. the final write-out of a file); the destructor cannot.
  void close() {
    if (id_ >= 0) KFORGE_H5_CHECK(Close(std::exchange(id_, H5I_INVALID_HID)));
  }

 private:
  void reset() {
    if (id_ >= 0) Close(std::exchange(id_, H5I_INVALID_HID));
  }
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;
using PropList = Handle<H5Pclose>;

// Variable-length UTF-8 C string type (h5py reads it as str, HDFView shows it as text).
Datatype vlen_string_type();

// Scalar root/dataset attributes.
void write_attr(hid_t obj, const std::string& name, const std::string& value);
void write_attr(hid_t obj, const std::string& name, long long value);
std::string read_string_attr(hid_t obj, const std::string& name);
long long read_int_attr(hid_t obj, const std::string& name);
void write_double_attr(hid_t obj, const std::string& name, double value);  // not an overload: an int would be ambiguous
double read_double_attr(hid_t obj, const std::string& name);
bool has_attr(hid_t obj, const std::string& name);
bool has_link(hid_t loc, const std::string& name);  // a dataset or group of that name exists in loc

}  // namespace kforge::jobs::h5
