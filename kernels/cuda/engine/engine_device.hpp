#pragma once
// Where the cuda engine's launch plan (cuda_engine_plan.hpp) runs: device memory, copies, kernel launches by name
// and marks on the one stream the harness owns, in order. Two implementations: the GPU through the driver API
// (driver_engine_device.hpp), and, in tests only, a CPU emulation of the module's kernels
// (tests/kernels_cuda/emulator/) that stands in for the GPU these machines do not have.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "family.hpp"

namespace kforge::kernels::cuda::engine {

class EngineDevice {
 public:
  virtual ~EngineDevice() = default;

  // A device allocation of `bytes`, alive as long as the device; its address as kernels see it. Contents undefined.
  virtual std::uint64_t allocate(std::size_t bytes) = 0;
  // Stream-ordered copies and fill. `upload` may return before the copy ran but after `from` may be reused.
  virtual void upload(std::uint64_t to, const void* from, std::size_t bytes) = 0;
  virtual void download(void* to, std::uint64_t from, std::size_t bytes) = 0;  // complete at synchronize()
  virtual void fill(std::uint64_t to, unsigned char value, std::size_t bytes) = 0;
  // Enqueues the module's kernel `name`. Throws when the launch fails (the evidence names the kernel).
  virtual void launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) = 0;
  // Enqueues the harness's kernel `name` (cuda_engine_pick.hpp): kforge's own module, loaded beside the candidate's,
  // whose kernels are never looked up in the candidate's module (which may define the same names).
  virtual void launch_harness(std::string_view name, const LaunchConfig& l, KernelArgs& args) = 0;
  // A mark on the stream; elapsed_ms(a, b) is the stream time between two marks, valid after synchronize().
  // begin_marks() starts a step: the marks it takes outside graphs reuse the numbers (and events) of earlier steps'.
  virtual void begin_marks() = 0;
  virtual int mark() = 0;
  virtual double elapsed_ms(int from, int to) = 0;
  // Graphs (the cuda engine's decode steps, `decode_graphs`): while capture() runs `enqueue`, nothing runs and
  // nothing may be copied to or from the host (a copy throws std::logic_error); launches, fills and marks are
  // recorded, each launch with its arguments as they are then, into a graph that replay() enqueues as one unit as
  // often as wanted: whatever changes from one replay to the next must be in device memory. A mark recorded in a
  // graph keeps its number for the device's lifetime and is set again by every replay. When `enqueue` throws, the
  // capture ends, no graph is kept and the exception propagates.
  virtual int capture(const std::function<void()>& enqueue) = 0;
  virtual void replay(int graph) = 0;
  // Waits until everything enqueued has run. Throws when a kernel failed (illegal address, trap).
  virtual void synchronize() = 0;
  // Device memory in use by this process (MiB), for the peak_memory_mb figure; 0 when unknown.
  virtual double used_memory_mib() = 0;
  // The device memory's bandwidth in bytes/s, measured by copying a buffer of `bytes` (at most 256 MiB) within the
  // device: the physical floor of a run's time (physical_floor.hpp). 0 where there is no real memory to measure.
  virtual double copy_bandwidth(std::size_t bytes) = 0;
};

// What both devices refuse while a graph is captured (a copy to or from the host, a wait, a capture in a capture):
// throws std::logic_error naming it when `capturing`.
inline void refuse_in_capture(bool capturing, const char* what) {
  if (capturing) throw std::logic_error(std::string("cuda engine: ") + what + " inside a graph's capture");
}

// How both devices number their marks: those taken outside graphs reuse the numbers handed out since the last
// begin_marks() (so a long run creates no more events than its longest step), those recorded in a graph get numbers
// of their own for good.
class MarkNumbers {
 public:
  void restart() { next_reusable_ = 0; }
  // The number of the next mark, and whether it is new (the device makes a mark for it first).
  std::pair<int, bool> next(bool in_graph) {
    if (!in_graph && next_reusable_ < reusable_.size()) return {reusable_[next_reusable_++], false};
    const int fresh = count_++;
    if (!in_graph) {
      reusable_.push_back(fresh);
      ++next_reusable_;
    }
    return {fresh, true};
  }

 private:
  std::vector<int> reusable_;
  std::size_t next_reusable_ = 0;
  int count_ = 0;
};

}  // namespace kforge::kernels::cuda::engine
