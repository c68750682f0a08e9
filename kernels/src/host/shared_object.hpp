#pragma once
// RAII around dlopen/dlclose for a candidate's shared object.
#include <filesystem>
#include <string>

namespace kforge::kernels::host {

class SharedObject {
 public:
  SharedObject() = default;
  // dlopen(RTLD_NOW | RTLD_LOCAL); throws std::runtime_error with dlerror()'s text.
  explicit SharedObject(const std::filesystem::path& path);
  ~SharedObject();
  SharedObject(SharedObject&& other) noexcept;
  SharedObject& operator=(SharedObject&& other) noexcept;
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  // dlsym; throws std::runtime_error naming the symbol and the file when it is missing.
  void* symbol(const std::string& name) const;
  bool loaded() const { return handle_ != nullptr; }

 private:
  void close() noexcept;
  void* handle_ = nullptr;
  std::filesystem::path path_;
};

}  // namespace kforge::kernels::host
