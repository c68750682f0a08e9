// HDF5 weight files: one float dataset per tensor at the file's root, named by the tensor (dots included), with
// the tensor's shape. Any float type is read (converted to float32 by HDF5); float32 is written.
#include <hdf5.h>

#include <stdexcept>

#include "kforge/engine/model_weights.hpp"

namespace kforge::kernels::engine {
namespace {

// Every HDF5 call is checked once, here: a negative status becomes an exception naming the call and the file.
template <typename T>
T checked(T status, const char* call, const std::string& path) {
  if (status < 0) throw std::runtime_error("weights file " + path + ": HDF5 call " + call + " failed");
  return status;
}
#define KFORGE_H5(call) checked((call), #call, path)

// Closes an HDF5 handle when it goes out of scope.
struct Handle {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id >= 0) close(id);
  }
  operator hid_t() const { return id; }
};

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}

}  // namespace

Weights load_weights_h5(const std::string& path, const jobs::ModelSpec& model) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not stderr noise
  const std::vector<TensorInfo> expected = tensor_list(model);
  if (KFORGE_H5(H5Fis_hdf5(path.c_str())) <= 0) throw std::runtime_error("weights file " + path + ": not an HDF5 file");
  Handle file(KFORGE_H5(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)), H5Fclose);
  std::vector<std::string> names;
  KFORGE_H5(H5Literate(file, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names));
  std::vector<TensorInfo> found;
  for (const auto& name : names) {
    H5O_info_t info;
    KFORGE_H5(H5Oget_info_by_name2(file, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT));
    if (info.type != H5O_TYPE_DATASET)
      throw std::runtime_error("weights file " + path + ": " + name + " is not a dataset (expected shape: none)");
    Handle set(KFORGE_H5(H5Dopen2(file, name.c_str(), H5P_DEFAULT)), H5Dclose);
    Handle space(KFORGE_H5(H5Dget_space(set)), H5Sclose);
    const int rank = KFORGE_H5(H5Sget_simple_extent_ndims(space));
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    KFORGE_H5(H5Sget_simple_extent_dims(space, dims.data(), nullptr));
    found.push_back({name, std::vector<std::int64_t>(dims.begin(), dims.end())});
  }
  check_file_tensors(path, expected, found);
  Weights w = empty_weights(model);
  for (const auto& t : expected) {
    Handle set(KFORGE_H5(H5Dopen2(file, t.name.c_str(), H5P_DEFAULT)), H5Dclose);
    Handle type(KFORGE_H5(H5Dget_type(set)), H5Tclose);
    if (KFORGE_H5(H5Tget_class(type)) != H5T_FLOAT)
      throw std::runtime_error("weights file " + path + ": tensor " + t.name + " is not a float dataset (shape " +
                               t.shape_text() + ")");
    KFORGE_H5(H5Dread(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w.tensor(t.name)));
  }
  return w;
}

void write_weights_h5(const std::string& path, const Weights& weights) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Handle file(KFORGE_H5(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)), H5Fclose);
  for (std::size_t i = 0; i < weights.tensors.size(); ++i) {
    const TensorInfo& t = weights.tensors[i];
    const std::vector<hsize_t> dims(t.shape.begin(), t.shape.end());
    Handle space(KFORGE_H5(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr)), H5Sclose);
    Handle set(
        KFORGE_H5(H5Dcreate2(file, t.name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)),
        H5Dclose);
    KFORGE_H5(H5Dwrite(set, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, weights.data.data() + weights.offsets[i]));
  }
  KFORGE_H5(H5Fflush(file, H5F_SCOPE_GLOBAL));
}

}  // namespace kforge::kernels::engine
