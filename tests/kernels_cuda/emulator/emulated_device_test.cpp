// The CPU emulation that stands in for a GPU in the cuda engine's tests is itself checked: a kernel of the engine's
// module run through it (kf_gemm with partial tiles and split-K's atomics) equals the same product computed on the
// host, block-wide reductions over warp shuffles see every thread, and threads stuck where no barrier can release
// them (a barrier in one lane, a shuffle in the others) are an error with the kernel named, not a hang; graphs are
// captured and replayed with a GPU's semantics.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bf16.hpp"
#include "cuda_engine_backend.hpp"
#include "cuda_engine_launches.hpp"
#include "cuda_engine_source.hpp"
#include "emulated_engine_device.hpp"
#include "engine_test_support.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

using kernels::engine::testing::ScratchDir;

ModuleImage image_of(const CudaEngineParams& p, std::string source = {}) {
  return {{},
          {},
          source.empty() ? render_cuda_engine_source(p) : source,
          {"-DKF_HEAD_DIM=16", "-DKF_PREPACK=0", "-DKF_KV_BLOCK=0"},
          nullptr};
}

std::uint64_t put(EngineDevice& d, const std::vector<float>& v) {
  const std::uint64_t at = d.allocate(v.size() * sizeof(float));
  d.upload(at, v.data(), v.size() * sizeof(float));
  return at;
}

TEST(CudaEmulator, AnEmulatedGemmEqualsTheProductOnTheHost) {
  ScratchDir scratch;
  for (int split : {1, 4}) {
    CudaEngineParams p;
    p.SPLIT_K = split;
    EmulatedEngineDevice d(image_of(p), scratch.sub("emulated"));
    const int M = 5, N = 70, K = 33;  // every tile partial
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> a(M * K), w(N * K), c(M * N, 0.f);
    for (float& x : a) x = u(rng);
    for (float& x : w) x = u(rng);
    const std::uint64_t da = put(d, a), dw = put(d, w), dc = put(d, c);
    KernelArgs args;
    args.pointer(da).i32(K).pointer(dw).pointer(dc).i32(N).i32(M).i32(N).i32(K).pointer(0).i32(0).pointer(
        0);  // no scales
    d.launch("kf_gemm", gemm_launch(p, M, N), args);
    d.download(c.data(), dc, c.size() * sizeof(float));
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double ref = 0.0;
        for (int k = 0; k < K; ++k) ref += double(a[m * K + k]) * w[n * K + k];
        ASSERT_NEAR(c[m * N + n], ref, 1e-5) << "split " << split << " at " << m << "," << n;
      }
  }
}

TEST(CudaEmulator, ABlockReductionOverWarpShufflesSeesEveryThread) {
  ScratchDir scratch;
  CudaEngineParams p;
  p.NORM_THREADS = 128;
  EmulatedEngineDevice d(image_of(p), scratch.sub("emulated"));
  const int hidden = 300;  // more elements than threads: each thread sums several
  std::vector<float> x(hidden), gamma(hidden, 1.f), out(hidden), inv(1);
  double squares = 0.0;
  for (int i = 0; i < hidden; ++i) squares += double(x[i] = 0.01f * float(i + 1)) * x[i];
  const std::uint64_t dx = put(d, x), dg = put(d, gamma), dout = put(d, out), dinv = put(d, inv);
  KernelArgs args;
  args.pointer(dx).pointer(dg).pointer(dout).pointer(dinv).i32(hidden).f32(0.f);
  d.launch("kf_rmsnorm", rows_launch(p, 1), args);
  d.download(inv.data(), dinv, sizeof(float));
  EXPECT_NEAR(inv[0], 1.0 / std::sqrt(squares / hidden), 1e-5);
}

TEST(CudaEmulator, ThreadsStuckAtABarrierAndAShuffleAreAnErrorNamingTheKernel) {
  ScratchDir scratch;
  CudaEngineParams p;
  std::string source = render_cuda_engine_source(p);
  const std::string from = "const int i = blockIdx.x * blockDim.x + threadIdx.x;";
  source.replace(source.find(from), from.size(),
                 from + "\n  if (threadIdx.x == 0) __syncthreads(); else __shfl_xor_sync(0xffffffffu, 0.f, 1);");
  EmulatedEngineDevice d(image_of(p, source), scratch.sub("emulated"));
  std::vector<float> x(256, 1.f);
  const std::uint64_t dx = put(d, x), dy = put(d, x);
  KernelArgs args;
  args.pointer(dx).pointer(dy).i32(256);
  try {
    d.launch("kf_add", elementwise_launch(p, 256), args);
    ADD_FAILURE() << "a divergent barrier ran";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("emulated launch of kf_add"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("different barriers"), std::string::npos) << e.what();
  }
}

// kf_to_bf16 (the cublas_bf16 baseline's projection inputs) rounds as the host's float_to_bf16 (cvt.rn.bf16.f32):
// ties to even, overflow to infinity, NaN quiet; it reads rows at their stride and writes them dense.
TEST(CudaEmulator, TheBf16ConversionOfTheBaselineRoundsToNearestEven) {
  ScratchDir scratch;
  CudaEngineParams p;
  EmulatedEngineDevice d(image_of(p), scratch.sub("emulated"));
  const float nan = std::nanf(""), inf = INFINITY;
  const std::vector<float> values = {1.f, 1.00390625f, 1.01171875f, -1.00390625f, 3.3895e38f, -inf,
                                     nan, 1e-40f,      0.1f,        -0.f,         65504.f,    1.0f + 1e-7f};
  const int rows = 3, cols = 4, ld = 5;
  std::vector<float> in(rows * ld, 7.f);  // the stride's padding must not be read into the output
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) in[r * ld + c] = values[r * cols + c];
  const std::uint64_t din = put(d, in), dout = d.allocate(rows * cols * sizeof(std::uint16_t));
  KernelArgs args;
  args.pointer(din).i32(ld).pointer(dout).i32(rows).i32(cols);
  d.launch("kf_to_bf16", elementwise_launch(p, rows * cols), args);
  std::vector<std::uint16_t> out(rows * cols);
  d.download(out.data(), dout, out.size() * sizeof(std::uint16_t));
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(out[i], float_to_bf16(values[i])) << "value " << values[i];
  EXPECT_EQ(out[1], 0x3f80) << "a tie rounds to the even 1.0";
  EXPECT_EQ(out[2], 0x3f82) << "a tie rounds to the even 1.015625";
}

// A graph (decode_graphs) as a GPU runs one: nothing runs while it is captured; each replay runs the launches with
// the arguments they had then and reads device memory as it is now; its marks keep their numbers.
TEST(CudaEmulator, AGraphRunsItsLaunchesAsCapturedOnTheMemoryAsItIsWhenReplayed) {
  ScratchDir scratch;
  CudaEngineParams p;
  EmulatedEngineDevice d(image_of(p), scratch.sub("emulated"));
  std::vector<float> x(8, 1.f), y(8, 2.f);
  const std::uint64_t dx = put(d, x), dy = put(d, y);
  int count = 4;
  int graph_mark = -1;
  const int graph = d.capture([&] {
    KernelArgs args;
    args.pointer(dx).pointer(dy).i32(count);  // x[0..count) += y
    d.launch("kf_add", elementwise_launch(p, count), args);
    graph_mark = d.mark();
  });
  count = 8;  // a host value changed after the capture: the graph keeps 4
  d.download(x.data(), dx, 8 * sizeof(float));
  EXPECT_EQ(x, std::vector<float>(8, 1.f)) << "a launch ran during its capture";
  d.replay(graph);
  y.assign(8, 10.f);
  d.upload(dy, y.data(), 8 * sizeof(float));
  d.replay(graph);
  d.download(x.data(), dx, 8 * sizeof(float));
  EXPECT_EQ(x, (std::vector<float>{13.f, 13.f, 13.f, 13.f, 1.f, 1.f, 1.f, 1.f}));
  EXPECT_EQ(d.launches(), 2);
  EXPECT_EQ(d.replays(), 2);
  d.begin_marks();
  EXPECT_NE(d.mark(), graph_mark) << "a step's marks reuse only numbers of marks outside graphs";
}

TEST(CudaEmulator, ACopyToOrFromTheHostInACaptureIsRefusedAndEndsIt) {
  ScratchDir scratch;
  CudaEngineParams p;
  EmulatedEngineDevice d(image_of(p), scratch.sub("emulated"));
  std::vector<float> x(4, 1.f);
  const std::uint64_t dx = put(d, x);
  EXPECT_THROW(d.capture([&] { d.upload(dx, x.data(), sizeof(float)); }), std::logic_error);
  EXPECT_THROW(d.capture([&] { d.download(x.data(), dx, sizeof(float)); }), std::logic_error);
  EXPECT_THROW(d.capture([&] { d.synchronize(); }), std::logic_error);
  EXPECT_EQ(d.graphs(), 0u);
  d.fill(dx, 0, 4 * sizeof(float));  // out of capture again: runs at once
  d.download(x.data(), dx, 4 * sizeof(float));
  EXPECT_EQ(x, std::vector<float>(4, 0.f));
}

}  // namespace
}  // namespace kforge::kernels::cuda::engine
