#include "device.hpp"

#include <utility>

#include "checked_call.hpp"

namespace kforge::kernels::cuda {

DeviceSession::DeviceSession() : api_(driver()) {
  KFORGE_CU_CHECK(api_.cuDeviceGet(&device_, 0));
  KFORGE_CU_CHECK(api_.cuDevicePrimaryCtxRetain(&context_, device_));
  try {
    KFORGE_CU_CHECK(api_.cuCtxSetCurrent(context_));
    KFORGE_CU_CHECK(api_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
  } catch (...) {
    api_.cuDevicePrimaryCtxRelease(device_);
    throw;
  }
}

DeviceSession::~DeviceSession() {
  if (stream_ != nullptr) api_.cuStreamDestroy(stream_);
  api_.cuDevicePrimaryCtxRelease(device_);
}

int DeviceSession::attribute(CUdevice_attribute which) const {
  int value = 0;
  KFORGE_CU_CHECK(api_.cuDeviceGetAttribute(&value, which, device_));
  return value;
}

int DeviceSession::compute_capability() const {
  return attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
         attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
}

std::string DeviceSession::name() const {
  char buf[256] = {};
  KFORGE_CU_CHECK(api_.cuDeviceGetName(buf, sizeof buf - 1, device_));
  return buf;
}

DeviceBuffer::DeviceBuffer(const DriverApi& api, std::size_t bytes) : api_(&api), bytes_(bytes) {
  KFORGE_CU_CHECK(api.cuMemAlloc(&ptr_, bytes == 0 ? 1 : bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) api_->cuMemFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : api_(other.api_), ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != 0) api_->cuMemFree(ptr_);
    api_ = other.api_;
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const Bytes& data) {
  if (data.size() != bytes_) throw std::logic_error("DeviceBuffer::upload: size mismatch");
  if (bytes_ != 0) KFORGE_CU_CHECK(api_->cuMemcpyHtoD(ptr_, data.data(), bytes_));
}

void DeviceBuffer::enqueue_download(Bytes& into, CUstream stream) const {
  into.resize(bytes_);
  if (bytes_ != 0) KFORGE_CU_CHECK(api_->cuMemcpyDtoHAsync(into.data(), ptr_, bytes_, stream));
}

LoadedKernel::LoadedKernel(const DeviceSession& session, const std::string& cubin, const std::string& entry)
    : api_(session.api()) {
  KFORGE_CU_CHECK(api_.cuModuleLoadData(&module_, cubin.data()));
  try {
    KFORGE_CU_CHECK(api_.cuModuleGetFunction(&function_, module_, entry.c_str()));
  } catch (...) {
    api_.cuModuleUnload(module_);
    throw;
  }
}

LoadedKernel::~LoadedKernel() { api_.cuModuleUnload(module_); }

void LoadedKernel::launch(const LaunchConfig& l, KernelArgs& args, CUstream stream) const {
  if (l.dynamic_shared_bytes > allowed_dynamic_shared_) {
    KFORGE_CU_CHECK(api_.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                            static_cast<int>(l.dynamic_shared_bytes)));
    allowed_dynamic_shared_ = l.dynamic_shared_bytes;
  }
  KFORGE_CU_CHECK(api_.cuLaunchKernel(function_, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                                      static_cast<unsigned>(l.dynamic_shared_bytes), stream, args.pointers(), nullptr));
}

}  // namespace kforge::kernels::cuda
