#include "driver_engine_device.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "checked_call.hpp"
#include "cuda_engine_pick.hpp"
#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine {

DriverEngineDevice::DriverEngineDevice(std::unique_ptr<DeviceSession> session, const std::string& cubin,
                                       const std::string& harness_cubin)
    : session_(std::move(session)), api_(session_->api()) {
  KFORGE_CU_CHECK(api_.cuModuleLoadData(&harness_module_, harness_cubin.data()));
  for (std::string_view name : {kPickPart, kPickRow}) {
    CUfunction f = nullptr;
    const std::string n(name);
    KFORGE_CU_CHECK(api_.cuModuleGetFunction(&f, harness_module_, n.c_str()));
    harness_kernels_.emplace(n, f);
  }
  KFORGE_CU_CHECK(api_.cuModuleLoadData(&module_, cubin.data()));
  for (std::string_view name : kEngineKernels) {
    CUfunction f = nullptr;
    const std::string n(name);
    if (api_.cuModuleGetFunction(&f, module_, n.c_str()) != CUDA_SUCCESS) {
      api_.cuModuleUnload(module_);
      api_.cuModuleUnload(harness_module_);
      throw std::runtime_error("cuda engine: the module defines no kernel " + n +
                               " (every engine module defines extern \"C\" __global__ " + n + ", docs/engines.md)");
    }
    kernels_.emplace(n, f);
  }
  for (std::string_view name : kOptionalEngineKernels) {  // launched only by genomes that use them (the compile
    CUfunction f = nullptr;                               // stage required them then)
    const std::string n(name);
    if (api_.cuModuleGetFunction(&f, module_, n.c_str()) == CUDA_SUCCESS) kernels_.emplace(n, f);
  }
}

DriverEngineDevice::~DriverEngineDevice() {
  // A step that threw after enqueuing work (a failed launch mid-step) may leave kernels queued on the buffers and
  // events below: they finish before anything is freed. The result is ignored (a faulted context reports its fault).
  api_.cuStreamSynchronize(session_->stream());
  for (CUgraphExec g : graphs_) api_.cuGraphExecDestroy(g);  // before the module whose kernels they launch
  for (CUevent e : events_) api_.cuEventDestroy(e);
  if (pinned_ != nullptr) api_.cuMemFreeHost(pinned_);
  buffers_.clear();
  api_.cuModuleUnload(module_);
  api_.cuModuleUnload(harness_module_);
}

std::uint64_t DriverEngineDevice::allocate(std::size_t bytes) {
  buffers_.emplace_back(api_, bytes);
  allocated_ += bytes;
  return buffers_.back().address();
}

void DriverEngineDevice::upload(std::uint64_t to, const void* from, std::size_t bytes) {
  refuse_in_capture(capturing_, "a copy from the host");
  // Pageable memory: the driver stages it before returning, so `from` may be reused at once; ordered on the stream.
  if (bytes != 0) KFORGE_CU_CHECK(api_.cuMemcpyHtoDAsync(to, from, bytes, session_->stream()));
}

bool DriverEngineDevice::stage(std::size_t bytes) {
  if (pinned_used_ + bytes <= pinned_bytes_) return true;
  if (pinned_refused_) return false;
  if (!pending_.empty()) synchronize();  // the staged copies land before their buffer is reused or replaced
  if (bytes <= pinned_bytes_) return true;
  if (pinned_ != nullptr) api_.cuMemFreeHost(pinned_);
  pinned_ = nullptr;
  pinned_bytes_ = pinned_used_ = 0;
  const std::size_t want = std::max<std::size_t>(bytes, std::size_t{1} << 20);
  if (api_.cuMemAllocHost(&pinned_, want) != CUDA_SUCCESS) {  // a node that pins nothing: pageable, slower
    pinned_ = nullptr;
    pinned_refused_ = true;
    return false;
  }
  pinned_bytes_ = want;
  return true;
}

void DriverEngineDevice::download(void* to, std::uint64_t from, std::size_t bytes) {
  refuse_in_capture(capturing_, "a copy to the host");
  if (bytes == 0) return;
  if (!stage(bytes)) {
    KFORGE_CU_CHECK(api_.cuMemcpyDtoHAsync(to, from, bytes, session_->stream()));
    return;
  }
  KFORGE_CU_CHECK(
      api_.cuMemcpyDtoHAsync(static_cast<std::byte*>(pinned_) + pinned_used_, from, bytes, session_->stream()));
  pending_.push_back({to, pinned_used_, bytes});
  pinned_used_ += bytes;
}

void DriverEngineDevice::fill(std::uint64_t to, unsigned char value, std::size_t bytes) {
  if (bytes != 0) KFORGE_CU_CHECK(api_.cuMemsetD8Async(to, value, bytes, session_->stream()));
}

void DriverEngineDevice::launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  const auto it = kernels_.find(name);
  if (it == kernels_.end()) throw std::logic_error("cuda engine: no kernel " + std::string(name) + " in the module");
  enqueue(it->second, name, l, args);
}

void DriverEngineDevice::launch_harness(std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  const auto it = harness_kernels_.find(name);
  if (it == harness_kernels_.end())
    throw std::logic_error("cuda engine: no kernel " + std::string(name) + " in the harness's module");
  enqueue(it->second, name, l, args);
}

void DriverEngineDevice::enqueue(CUfunction f, std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  const CUresult r = api_.cuLaunchKernel(f, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], 0,
                                         session_->stream(), args.pointers(), nullptr);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error("cuda engine: launching " + std::string(name) + " (" + l.text() +
                             ") failed: " + driver_error_text(r));
}

int DriverEngineDevice::mark() {
  const auto [number, fresh] = marks_.next(capturing_);
  if (fresh) {
    CUevent e = nullptr;
    KFORGE_CU_CHECK(api_.cuEventCreate(&e, CU_EVENT_DEFAULT));
    events_.push_back(e);
  }
  const CUevent e = events_[static_cast<std::size_t>(number)];
  // In a capture, an event record node (EXTERNAL): a plain record there would only order streams, and the graph's
  // replays would never set the event.
  if (capturing_)
    KFORGE_CU_CHECK(api_.cuEventRecordWithFlags(e, session_->stream(), CU_EVENT_RECORD_EXTERNAL));
  else
    KFORGE_CU_CHECK(api_.cuEventRecord(e, session_->stream()));
  return number;
}

int DriverEngineDevice::capture(const std::function<void()>& enqueue) {
  refuse_in_capture(capturing_, "a capture");
  const CUstream stream = session_->stream();
  // Thread-local: a driver call of another thread of the process cannot invalidate it.
  KFORGE_CU_CHECK(api_.cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  capturing_ = true;
  CUgraph graph = nullptr;
  try {
    enqueue();
  } catch (...) {
    capturing_ = false;
    if (api_.cuStreamEndCapture(stream, &graph) == CUDA_SUCCESS && graph != nullptr) api_.cuGraphDestroy(graph);
    throw;
  }
  capturing_ = false;
  KFORGE_CU_CHECK(api_.cuStreamEndCapture(stream, &graph));
  CUgraphExec exec = nullptr;
  const CUresult instantiated = api_.cuGraphInstantiateWithFlags(&exec, graph, 0);
  api_.cuGraphDestroy(graph);  // the executable graph is a copy
  KFORGE_CU_CHECK(instantiated);
  graphs_.push_back(exec);
  return static_cast<int>(graphs_.size()) - 1;
}

void DriverEngineDevice::replay(int graph) {
  KFORGE_CU_CHECK(api_.cuGraphLaunch(graphs_.at(static_cast<std::size_t>(graph)), session_->stream()));
}

double DriverEngineDevice::elapsed_ms(int from, int to) {
  float ms = 0.f;
  KFORGE_CU_CHECK(api_.cuEventElapsedTime(&ms, events_.at(static_cast<std::size_t>(from)),
                                          events_.at(static_cast<std::size_t>(to))));
  return ms;
}

double DriverEngineDevice::copy_bandwidth(std::size_t bytes) {
  // Two buffers outside allocate()'s count (gone on return), copied one into the other: each pass reads and writes
  // every byte. The best of several passes after a first that warms the copy engine up.
  constexpr int kPasses = 5;
  bytes = std::clamp<std::size_t>(bytes, std::size_t{1} << 20, std::size_t{256} << 20);
  const DeviceBuffer from(api_, bytes), to(api_, bytes);
  double best_ms = 0.0;
  for (int pass = 0; pass <= kPasses; ++pass) {
    begin_marks();
    const int start = mark();
    KFORGE_CU_CHECK(api_.cuMemcpyDtoDAsync(to.address(), from.address(), bytes, session_->stream()));
    const int end = mark();
    synchronize();
    const double ms = elapsed_ms(start, end);
    if (pass > 0 && ms > 0.0 && (best_ms == 0.0 || ms < best_ms)) best_ms = ms;
  }
  return best_ms > 0.0 ? 2.0 * static_cast<double>(bytes) / (best_ms * 1e-3) : 0.0;
}

void DriverEngineDevice::synchronize() {
  // A kernel that faulted (illegal address, trap) surfaces here with the driver's error name; the sandbox records
  // the child as crashed with this text.
  refuse_in_capture(capturing_, "a wait for the stream");
  KFORGE_CU_CHECK(api_.cuStreamSynchronize(session_->stream()));
  for (const PendingDownload& d : pending_) std::memcpy(d.to, static_cast<std::byte*>(pinned_) + d.offset, d.bytes);
  pending_.clear();
  pinned_used_ = 0;
}

}  // namespace kforge::kernels::cuda::engine
