#include "host/shared_object.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <utility>

namespace kforge::kernels::host {

SharedObject::SharedObject(const std::filesystem::path& path) : path_(path) {
  dlerror();  // clear a stale error
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error("dlopen " + path.string() + " failed: " + (why != nullptr ? why : "unknown error"));
  }
}

SharedObject::~SharedObject() { close(); }

SharedObject::SharedObject(SharedObject&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

SharedObject& SharedObject::operator=(SharedObject&& other) noexcept {
  if (this != &other) {
    close();
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

void* SharedObject::symbol(const std::string& name) const {
  if (handle_ == nullptr) throw std::runtime_error("dlsym " + name + ": no shared object is loaded");
  dlerror();
  void* address = dlsym(handle_, name.c_str());
  if (address == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error("dlsym " + name + " in " + path_.string() + " failed: " +
                             (why != nullptr ? why : "the symbol is null"));
  }
  return address;
}

void SharedObject::close() noexcept {
  if (handle_ != nullptr) dlclose(handle_);
  handle_ = nullptr;
}

}  // namespace kforge::kernels::host
