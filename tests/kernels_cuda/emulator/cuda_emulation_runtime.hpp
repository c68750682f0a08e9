// A CPU emulation of the CUDA C++ the cuda engine module is written in: a FAKE GPU, for tests on machines without
// one (tests/kernels_cuda/emulator/README.md). The emulated device compiles a module's source as host C++ with this
// header force-included (g++ -include), so the same kernel text NVRTC compiles for sm_90a runs here.
//
// What it emulates: a launch runs its blocks one after another; a block's threads are fibers on one OS thread, switched
// only at __syncthreads() and warp shuffles, so shared memory (__shared__ becomes a static local: one block at a time
// uses it, and each block finds it poisoned) and barriers behave as on a GPU for kernels whose barriers are
// block-uniform and whose shuffles are warp-uniform; threads that have exited count as arrived at a barrier, as on the
// GPU. atomicAdd is a plain add (one OS thread); cp.async, ldmatrix and mma.sync as the PTX ISA defines them
// (cuda_emulation_tensor_ops.hpp). What it does not: timing, memory spaces, warp-synchronous code without shuffles or
// those operations, other PTX, and telling two different __syncthreads apart. Threads stuck at a barrier and a shuffle
// that cannot both be passed are reported as an error, never hung.
#pragma once
#include <ucontext.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Relative to this file: the emulated module's compile has no include path of the project's.
#include "../../../kernels/cuda/families/bf16.hpp"

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

namespace kf_emu {

inline dim3 thread_idx, block_idx, block_dim, grid_dim;

enum class Wait { none, block, warp, done };

#if defined(__x86_64__)
// A fiber switch that saves only what the System V ABI makes callee-saved (swapcontext also saves the signal
// mask with a system call per switch, which made the emulation several times slower).
extern "C" void kf_emu_switch(void** save_sp, void* load_sp);
asm(R"(
  .text
  .hidden kf_emu_switch
  .globl kf_emu_switch
  .type kf_emu_switch, @function
kf_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size kf_emu_switch, .-kf_emu_switch
)");
struct Context {
  void* sp = nullptr;
};
inline void switch_to(Context& save, Context& load) { kf_emu_switch(&save.sp, load.sp); }
// A fresh context that starts `entry` (which never returns) on [stack, stack + size).
inline void make_context(Context& c, char* stack, std::size_t size, void (*entry)()) {
  auto top = reinterpret_cast<std::uintptr_t>(stack + size) & ~std::uintptr_t{15};
  auto* frame = reinterpret_cast<void**>(top - 64);
  for (int i = 0; i < 6; ++i) frame[i] = nullptr;  // rbp, rbx, r12-r15
  frame[6] = reinterpret_cast<void*>(entry);       // where the first switch "returns"
  frame[7] = nullptr;                              // entry's own return address: it never returns
  c.sp = frame;
}
#else
struct Context {
  ucontext_t uc{};
};
inline void switch_to(Context& save, Context& load) { swapcontext(&save.uc, &load.uc); }
inline void make_context(Context& c, char* stack, std::size_t size, void (*entry)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, entry, 0);
}
#endif

struct Fiber {
  Context context{};
  Wait wait = Wait::none;
};

// One cp.async copy issued and not yet complete: its bytes as read when issued, and where they land.
struct PendingCopy {
  void* dst = nullptr;
  unsigned char bytes[16] = {};
  std::size_t size = 0;
};

// A thread's cp.async copies: the group still open, and the committed groups, oldest first.
struct AsyncCopies {
  std::vector<PendingCopy> open;
  std::vector<std::vector<PendingCopy>> committed;
};

struct BlockRun {
  std::vector<Fiber> fibers;
  std::vector<std::unique_ptr<char[]>> stacks;          // not zeroed: only the pages a fiber touches become resident
  std::vector<std::array<unsigned char, 64>> exchange;  // one slot per thread for warp-collective operations
  std::vector<AsyncCopies> copies;                      // per thread: its cp.async groups in flight
  Context scheduler{};
  int current = -1;
  const std::function<void()>* body = nullptr;
  std::string error;  // the block's first fault (fault()): the launch fails with it, as a GPU's would
};

inline BlockRun& run() {
  static BlockRun r;
  return r;
}

// What a GPU reports as a launch failure (a misaligned address, say): the block runs on, the launch fails naming the
// first.
inline void fault(const std::string& what) {
  BlockRun& r = run();
  if (r.error.empty())
    r.error = what + " (block " + std::to_string(block_idx.x) + "," + std::to_string(block_idx.y) + "," +
              std::to_string(block_idx.z) + ", thread " + std::to_string(r.current) + ")";
}

inline void set_thread(int i) {
  const unsigned bx = block_dim.x, by = block_dim.y;
  thread_idx = {static_cast<unsigned>(i) % bx, (static_cast<unsigned>(i) / bx) % by,
                static_cast<unsigned>(i) / (bx * by)};
}

inline void yield(Wait why) {
  BlockRun& r = run();
  Fiber& f = r.fibers[static_cast<std::size_t>(r.current)];
  f.wait = why;
  switch_to(f.context, r.scheduler);
}

[[noreturn]] inline void fiber_main() {
  BlockRun& r = run();
  (*r.body)();
  yield(Wait::done);  // never resumed: the scheduler makes a new context for the thread's next block
  __builtin_unreachable();
}

// Releases the fibers waiting at a barrier every live member of their group has reached. False: none could be.
inline bool release(BlockRun& r, int threads) {
  int live = 0, at_block = 0;
  for (const Fiber& f : r.fibers) {
    live += f.wait != Wait::done;
    at_block += f.wait == Wait::block;
  }
  if (live > 0 && at_block == live) {  // threads that have exited count as arrived, as on the GPU
    for (Fiber& f : r.fibers)
      if (f.wait == Wait::block) f.wait = Wait::none;
    return true;
  }
  bool released = false;
  for (int w = 0; w < threads; w += 32) {
    const int end = std::min(threads, w + 32);
    int lanes = 0, at_warp = 0;
    for (int i = w; i < end; ++i) {
      lanes += r.fibers[static_cast<std::size_t>(i)].wait != Wait::done;
      at_warp += r.fibers[static_cast<std::size_t>(i)].wait == Wait::warp;
    }
    if (at_warp == 0 || at_warp != lanes) continue;
    for (int i = w; i < end; ++i) r.fibers[static_cast<std::size_t>(i)].wait = Wait::none;
    released = true;
  }
  return released;
}

// Runs one block of `threads` fibers to completion. Returns "" or why it could not (divergent barriers).
inline std::string run_block(int threads) {
  BlockRun& r = run();
  constexpr std::size_t kStack = 64 * 1024;  // the module's largest per-thread array is a few KiB
  if (r.stacks.size() < static_cast<std::size_t>(threads)) r.stacks.resize(static_cast<std::size_t>(threads));
  r.fibers.assign(static_cast<std::size_t>(threads), Fiber{});
  r.exchange.assign(static_cast<std::size_t>(threads), {});
  r.copies.assign(static_cast<std::size_t>(threads), {});  // copies never waited for never land
  r.error.clear();
  for (int i = 0; i < threads; ++i) {
    auto& stack = r.stacks[static_cast<std::size_t>(i)];
    if (!stack) stack.reset(new char[kStack]);
    make_context(r.fibers[static_cast<std::size_t>(i)].context, stack.get(), kStack, &fiber_main);
  }
  for (;;) {
    for (int i = 0; i < threads; ++i) {
      if (r.fibers[static_cast<std::size_t>(i)].wait != Wait::none) continue;
      r.current = i;
      set_thread(i);
      switch_to(r.scheduler, r.fibers[static_cast<std::size_t>(i)].context);
    }
    if (std::all_of(r.fibers.begin(), r.fibers.end(), [](const Fiber& f) { return f.wait == Wait::done; }))
      return r.error;
    if (!release(r, threads))
      return "threads of a block wait at different barriers (a divergent __syncthreads or shuffle)";
  }
}

// The launch's dynamic shared memory (KF_DYNAMIC_SHARED): one buffer, as one block runs at a time.
inline std::vector<unsigned char>& dynamic_shared_buffer() {
  static std::vector<unsigned char> buffer;
  return buffer;
}

// Every __shared__ variable of the module sits in the section kf_shared (the __shared__ macro below), whose bounds
// the linker gives as __start_ / __stop_ symbols (weak: a module may have none).
extern "C" unsigned char __start_kf_shared[] __attribute__((weak, visibility("hidden")));
extern "C" unsigned char __stop_kf_shared[] __attribute__((weak, visibility("hidden")));

// Runs body() as the kernel of every thread of every block, blocks in order, each block with `dynamic_shared`
// bytes of dynamic shared memory, and the module's static shared memory, filled with 0xFF (a NaN in fp32 and bf16,
// -1 as an integer: nothing a block did not write is readable as a number, as a GPU's shared memory holds whatever
// the previous block left there). Returns "" or the error.
inline std::string launch(const std::function<void()>& body, const unsigned* grid, const unsigned* block,
                          std::size_t dynamic_shared = 0) {
  BlockRun& r = run();
  r.body = &body;
  grid_dim = {grid[0], grid[1], grid[2]};
  block_dim = {block[0], block[1], block[2]};
  const int threads = static_cast<int>(block[0] * block[1] * block[2]);
  for (unsigned z = 0; z < grid[2]; ++z)
    for (unsigned y = 0; y < grid[1]; ++y)
      for (unsigned x = 0; x < grid[0]; ++x) {
        block_idx = {x, y, z};
        dynamic_shared_buffer().assign(dynamic_shared + 16, 0xFF);
        if (__start_kf_shared != nullptr && __stop_kf_shared != nullptr)
          std::memset(__start_kf_shared, 0xFF, static_cast<std::size_t>(__stop_kf_shared - __start_kf_shared));
        if (std::string e = run_block(threads); !e.empty()) return e;
      }
  return "";
}

// A kernel called with cuLaunchKernel's argument array: each entry points at one argument's bytes.
template <class... A, std::size_t... I>
void call_with(void (*kernel)(A...), void** args, std::index_sequence<I...>) {
  kernel(*static_cast<std::remove_cv_t<std::remove_reference_t<A>>*>(args[I])...);
}
template <class... A>
void invoke(void (*kernel)(A...), void** args) {
  call_with(kernel, args, std::index_sequence_for<A...>{});
}

// A warp-collective operation: every live lane of the warp puts `mine` in its slot, and once all have, `use(slot of
// lane)` reads the others' (lanes outside the block read as the caller's own). No slot is overwritten before every
// lane has read.
template <class T, class Use>
void warp_exchange(const T& mine, Use&& use) {
  static_assert(sizeof(T) <= 64 && std::is_trivially_copyable_v<T>);
  BlockRun& r = run();
  const int me = r.current;
  std::memcpy(r.exchange[static_cast<std::size_t>(me)].data(), &mine, sizeof(T));
  yield(Wait::warp);
  use([&r, me](int lane) {
    const int other = (me & ~31) | (lane & 31);
    T value;
    std::memcpy(&value,
                r.exchange[static_cast<std::size_t>(other < static_cast<int>(r.exchange.size()) ? other : me)].data(),
                sizeof(T));
    return value;
  });
  yield(Wait::warp);
}

inline float shuffle_xor(float v, int lane_mask) {
  float got = v;
  const int me = run().current & 31;
  warp_exchange(v, [&](auto lane) { got = lane(me ^ lane_mask); });
  return got;
}

}  // namespace kf_emu

#define threadIdx kf_emu::thread_idx
#define blockIdx kf_emu::block_idx
#define blockDim kf_emu::block_dim
#define gridDim kf_emu::grid_dim
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static __attribute__((section("kf_shared")))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

inline void __syncthreads() { kf_emu::yield(kf_emu::Wait::block); }
inline float __shfl_xor_sync(unsigned, float v, int lane_mask) { return kf_emu::shuffle_xor(v, lane_mask); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float atomicAdd(float* at, float v) {
  const float old = *at;
  *at = old + v;
  return old;
}
using std::max;
using std::min;

// What kernel templates keep under #ifndef KF_EMULATION (PTX and NVRTC built-ins), for host C++: cp.async with its
// groups, ldmatrix and mma.sync (cuda_emulation_tensor_ops.hpp), bf16 rounding as cvt.rn.bf16.f32 does it, and the
// dynamic shared memory of the launch.
#define KF_EMULATION 1
#define KF_DYNAMIC_SHARED(name)                           \
  unsigned char* name = reinterpret_cast<unsigned char*>( \
      (reinterpret_cast<std::uintptr_t>(kf_emu::dynamic_shared_buffer().data()) + 15) & ~std::uintptr_t{15})
inline float __expf(float x) { return std::exp(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __uint_as_float(unsigned bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline unsigned __float_as_uint(float f) {
  unsigned bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}
using kforge::kernels::cuda::float_to_bf16;  // bf16.hpp, the families' host rounding

#include "cuda_emulation_tensor_ops.hpp"
