#pragma once
// RAII around dlopen/dlclose for a candidate's shared object.
#include <filesystem>
#include <stdexcept>
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

// One candidate's entry point and the library holding it, as every host backend keeps them in its child.
template <typename Fn>
class LoadedEntry {
 public:
  // Replaces the previous candidate's library; throws std::runtime_error when dlopen or dlsym fails.
  void load(const std::filesystem::path& artefact, const std::string& symbol) {
    fn_ = nullptr;
    library_ = SharedObject();  // unload the previous candidate before dlopen, which caches by path
    library_ = SharedObject(artefact);
    fn_ = reinterpret_cast<Fn>(library_.symbol(symbol));
  }
  // The entry point; std::logic_error naming the backend before a successful load().
  Fn get(const char* backend) const {
    if (fn_ == nullptr) {
      throw std::logic_error(std::string(backend) + ": verify()/time() called before a successful load()");
    }
    return fn_;
  }

 private:
  SharedObject library_;
  Fn fn_ = nullptr;
};

}  // namespace kforge::kernels::host
