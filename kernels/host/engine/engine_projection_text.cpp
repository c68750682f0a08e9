// The engine template's text (engine_template_text.hpp): the thread pool and the projections (every Linear of the
// model) on the gemm family's kernel.
#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine::text {

std::string engine_threads() {
  return R"ENG(
namespace eng {

using i64 = std::int64_t;
using clock_type = std::chrono::steady_clock;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// ---- threads: THREADS - 1 persistent workers take parts 1.. of every parallel region, the caller part 0.
// THREADS is the genome's `threads`, or with threads=0 every CPU the process may use (its affinity mask: the
// cores the rank was given), fixed at kInit. A region is a few microseconds of work (one decode step has ~5 per
// layer), so a worker spins on the region counter for up to SPIN_US before it sleeps on the condition variable: a
// wake-up through the kernel costs tens of microseconds on a VM, more than the region itself. Spinning sides yield
// every 64 turns, so that when the scheduler puts two of them on one core, the one with work runs.
constexpr long SPIN_US = 3000;
int THREADS = 1;
struct Pool {
  std::vector<std::thread> workers;
  std::atomic<long> posted{0};
  std::atomic<int> unfinished{0};  // workers still in the current region
  std::atomic<int> sleeping{0};
  std::mutex m;
  std::condition_variable cv;
  void (*call)(void*, int) = nullptr;
  void* context = nullptr;
  // Each thread keeps to one CPU of the process's allowed set: left to the scheduler, a caller woken by the
  // harness's command often lands on the CPU where a worker spins, and both then share one core until a load
  // balance, each part taking as long as the whole region.
  void start() {
    if (THREADS <= 1) return;
    cpu_set_t allowed;  // read before the caller pins itself: the workers inherit the caller's set
    const bool pin = sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) >= THREADS;
    if (pin) pin_to(allowed, 0);
    for (int w = 1; w < THREADS; ++w)
      workers.emplace_back([this, pin, allowed, w] {
        if (pin) pin_to(allowed, w);
        loop(w);
      });
  }
  static void pin_to(const cpu_set_t& allowed, int index) {
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &allowed) || seen++ != index) continue;
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      sched_setaffinity(0, sizeof one, &one);  // 0: the calling thread only
      return;
    }
  }
  void wait_for_region(long seen) {
    const auto until = clock_type::now() + std::chrono::microseconds(SPIN_US);
    for (int spin = 1; posted.load(std::memory_order_acquire) == seen; ++spin) {
      cpu_relax();
      if (spin % 64 != 0) continue;
      if (clock_type::now() < until) {
        std::this_thread::yield();  // a thread that shares this core (the caller, woken there) runs first
        continue;
      }
      // Sleep: `sleeping` is raised before the last look at `posted`, and run() reads it after posting, so one of
      // the two always sees the other (both seq_cst) and no wake-up is lost.
      std::unique_lock<std::mutex> lock(m);
      sleeping.fetch_add(1);
      cv.wait(lock, [&] { return posted.load() != seen; });
      sleeping.fetch_sub(1);
      return;
    }
  }
  void loop(int part) {
    for (long seen = 0;;) {
      wait_for_region(seen);
      seen = posted.load(std::memory_order_acquire);
      call(context, part);
      unfinished.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  template <typename F>
  void run(F& f) {
    if (THREADS == 1) {
      f(0);
      return;
    }
    call = [](void* c, int part) { (*static_cast<F*>(c))(part); };
    context = &f;
    unfinished.store(THREADS - 1, std::memory_order_relaxed);
    posted.fetch_add(1);  // publishes call, context and unfinished
    if (sleeping.load() > 0) {
      std::lock_guard<std::mutex> lock(m);
      cv.notify_all();
    }
    f(0);
    for (int spin = 1; unfinished.load(std::memory_order_acquire) != 0; ++spin) {
      cpu_relax();
      if (spin % 64 == 0) std::this_thread::yield();
    }
  }
};
Pool* pool = nullptr;  // never destroyed: the worker waits in it until the process exits

// f(begin, end) over THREADS contiguous parts of [0, n).
template <typename F>
void parallel_for(i64 n, F&& f) {
  auto part = [&](int p) {
    const i64 lo = n * p / THREADS, hi = n * (p + 1) / THREADS;
    if (lo < hi) f(lo, hi);
  };
  pool->run(part);
}

// f(item) for every item of [0, n), dealt out in turn: items whose cost grows with the index (a prefill chunk's
// attention rows) end up evenly split.
template <typename F>
void parallel_each(i64 n, F&& f) {
  auto part = [&](int p) {
    for (i64 item = p; item < n; item += THREADS) f(item);
  };
  pool->run(part);
}
)ENG";
}

std::string engine_projections() {
  return R"ENG(
// ---- projections on the gemm family's kernel (the Linears of engine_weights_text.cpp).
// The prepacked path: the gemm family's register tile (MR rows x NR columns in NV vectors, the k loop unrolled
// UNROLL times) run over R rows of the activations, read in place, and P panels side by side. P gives a tile of
// few rows (a decode step's) enough independent accumulators to hide the FMA latency.
constexpr int P_FULL = 8 / (MR * NV) > 1 ? 8 / (MR * NV) : 1;  // panels per MR-row tile
constexpr int P_ONE = 8 / NV > 1 ? 8 / NV : 1;                  // panels per single-row tile
constexpr int OUT_TILE = MR * P_FULL > P_ONE ? MR * P_FULL * NR : P_ONE * NR;

template <int R, int P>
__attribute__((always_inline)) inline void panel_step(vf (&acc)[R][P][NV], const float* __restrict a, i64 lda,
                                                      const Stored* __restrict b, i64 panel_stride) {
  vf bv[P][NV];
#pragma GCC unroll 64
  for (int p = 0; p < P; ++p) {
    int v = 0;
    if constexpr (WEIGHTS == 1) {  // bf16: vectors in interleaved pairs (panel_position)
#pragma GCC unroll 64
      for (; v + 1 < NV; v += 2) load_bf16_pair(b + p * panel_stride + v * VEC, bv[p][v], bv[p][v + 1]);
    }
#pragma GCC unroll 64
    for (; v < NV; ++v) bv[p][v] = load_w(b + p * panel_stride + v * VEC);
  }
#pragma GCC unroll 64
  for (int r = 0; r < R; ++r) {
    const float ar = a[r * lda];
#pragma GCC unroll 64
    for (int p = 0; p < P; ++p)
#pragma GCC unroll 64
      for (int v = 0; v < NV; ++v) acc[r][p][v] += ar * bv[p][v];
  }
}

// out[R][P * NR] = a[R][K] (row stride lda) times the P panels at b; int8: each column then times its scale (sc:
// the first panel's NR scales, the next panels' after them).
template <int R, int P>
__attribute__((noinline)) void panel_block(i64 K, const float* __restrict a, i64 lda, const Stored* __restrict b,
                                           const float* __restrict sc, float* __restrict out) {
  vf acc[R][P][NV] = {};
  const i64 stride = K * NR;
  i64 k = 0;
  for (; k + UNROLL <= K; k += UNROLL) {
    if constexpr (PREFETCH > 0) {  // the lines PREFETCH bytes past this step's in each panel
      constexpr int STEP_BYTES = UNROLL * NR * int(sizeof(Stored));
#pragma GCC unroll 64
      for (int p = 0; p < P; ++p) {
        // An address, not a pointer: past the weights' end it names memory no object holds (a prefetch never faults).
        const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(b + p * stride + k * NR) + PREFETCH;
#pragma GCC unroll 64
        for (int off = 0; off < STEP_BYTES; off += 64) __builtin_prefetch(reinterpret_cast<const void*>(at + off));
      }
    }
#pragma GCC unroll 64
    for (int u = 0; u < UNROLL; ++u) panel_step<R, P>(acc, a + k + u, lda, b + (k + u) * NR, stride);
  }
  for (; k < K; ++k) panel_step<R, P>(acc, a + k, lda, b + k * NR, stride);
#pragma GCC unroll 64
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 64
    for (int p = 0; p < P; ++p)
#pragma GCC unroll 64
      for (int v = 0; v < NV; ++v) {
        if constexpr (WEIGHTS == 2) acc[r][p][v] *= load(sc + p * NR + v * VEC);
        store(out + (r * P + p) * NR + v * VEC, acc[r][p][v]);
      }
}

std::vector<float> xt_buffer, yt_buffer;  // the unpacked path's transposed activations

// y[M][out] (row stride ldy) = row_scale * (x[M][in] W^T); with residual, y += that instead (the epilogue add).
void matmul(const Linear& l, const float* x, i64 M, float* y, i64 ldy, const float* row_scale, bool residual) {
  const i64 K = l.in, N = l.out;
  auto epilogue = [&](i64 r, i64 c, float v) {
    const float s = row_scale ? row_scale[r] * v : v;
    float& dst = y[r * ldy + c];
    dst = residual ? dst + s : s;
  };
  if constexpr (PANELS) {  // panels split between the threads; each tile's outputs go straight through the epilogue
    const Stored* w = l.w.data();
    auto sc = [&](i64 panel) { return WEIGHTS == 2 ? l.scale.data() + panel * NR : nullptr; };
    parallel_for((N + NR - 1) / NR, [&](i64 p0, i64 p1) {
      alignas(64) float out[OUT_TILE];
      auto emit = [&](i64 r0, int rows, i64 panel, int panels) {
        const i64 c0 = panel * NR, width = std::min<i64>(panels * NR, N - c0);
        for (int r = 0; r < rows; ++r)
          for (i64 c = 0; c < width; ++c) epilogue(r0 + r, c0 + c, out[r * panels * NR + c]);
      };
      for (i64 g = p0; g < p1; g += P_ONE) {  // P_ONE panels at a time: every row of x meets them in cache
        const i64 gn = std::min<i64>(P_ONE, p1 - g);
        i64 r = 0;
        for (; r + MR <= M; r += MR) {
          i64 p = g;
          for (; p + P_FULL <= g + gn; p += P_FULL) {
            panel_block<MR, P_FULL>(K, x + r * K, K, w + p * K * NR, sc(p), out);
            emit(r, MR, p, P_FULL);
          }
          for (; p < g + gn; ++p) {
            panel_block<MR, 1>(K, x + r * K, K, w + p * K * NR, sc(p), out);
            emit(r, MR, p, 1);
          }
        }
        for (; r < M; ++r) {
          if (gn == P_ONE) {
            panel_block<1, P_ONE>(K, x + r * K, K, w + g * K * NR, sc(g), out);
            emit(r, 1, g, P_ONE);
          } else {
            for (i64 p = g; p < g + gn; ++p) {
              panel_block<1, 1>(K, x + r * K, K, w + p * K * NR, sc(p), out);
              emit(r, 1, p, 1);
            }
          }
        }
      }
    });
  } else {  // y^T = W x^T on the gemm kernel itself: x transposed first, the result transposed back in the output pass
    const float* xt = x;
    if (M > 1) {
      xt_buffer.resize(static_cast<std::size_t>(K * M));
      for (i64 r = 0; r < M; ++r)
        for (i64 k = 0; k < K; ++k) xt_buffer[k * M + r] = x[r * K + k];
      xt = xt_buffer.data();
    }
    yt_buffer.resize(static_cast<std::size_t>(N * M));
    float* yt = yt_buffer.data();
    parallel_for(N, [&](i64 n0, i64 n1) {
      // Only fp32 weights come here (PANELS otherwise): the cast names the type Stored is then.
      const float* w = reinterpret_cast<const float*>(l.w.data());
      gemm_kernel(int(n1 - n0), int(M), int(K), w + n0 * K, int(K), xt, int(M), yt + n0 * M, int(M));
      for (i64 r = 0; r < M; ++r)
        for (i64 c = n0; c < n1; ++c) epilogue(r, c, yt[c * M + r]);
    });
  }
}
)ENG";
}

}  // namespace kforge::kernels::engine::text
