// The CPU emulation's cp.async, ldmatrix and mma.sync (cuda_emulation_tensor_ops.hpp) hold the semantics the PTX ISA
// gives them: fragments laid out as the ISA's figures for m16n8k16 and m8n8 say, and copies that land only when
// waited for. The kernels below index the ISA's layouts directly; a wrong emulation makes them disagree with the
// product computed here in double.
#include <gtest/gtest.h>

#include <cmath>

#include "bf16.hpp"
#include "emulated_module.hpp"
#include "host_gemm_test_support.hpp"

namespace kforge::kernels::cuda {
namespace {

// mma_probe: A 16x16 and B 16x8 (row-major bf16) into fragments by the ISA's tables, C = A B + 1 out row-major.
// ldmatrix_probe: 32 rows of 8 bf16, lane l giving row l's address; every register of every lane written out, x4 and
// x4.trans. async_probe: the value a thread sees before and after waiting for its copies. aligned_probe: a 16-byte
// cp.async and an ldmatrix row `skew` bytes off their alignment. poison_probe: block 0 writes a static __shared__
// array, every block reads it.
const char* kProbes = R"(
extern "C" __global__ void mma_probe(const unsigned short* A, const unsigned short* B, float* C) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  auto pair = [](const unsigned short* p, int stride) { return p[0] | ((unsigned)p[stride] << 16); };
  unsigned a[4] = {pair(A + g * 16 + 2 * t, 1), pair(A + (g + 8) * 16 + 2 * t, 1), pair(A + g * 16 + 2 * t + 8, 1),
                   pair(A + (g + 8) * 16 + 2 * t + 8, 1)};
  unsigned b[2] = {pair(B + (2 * t) * 8 + g, 8), pair(B + (2 * t + 8) * 8 + g, 8)};
  float c[4] = {1.f, 1.f, 1.f, 1.f};
  mma_bf16(c, a, b);
  C[g * 8 + 2 * t] = c[0]; C[g * 8 + 2 * t + 1] = c[1];
  C[(g + 8) * 8 + 2 * t] = c[2]; C[(g + 8) * 8 + 2 * t + 1] = c[3];
}
extern "C" __global__ void ldmatrix_probe(const unsigned short* rows, unsigned* out) {
  const int lane = threadIdx.x;
  unsigned r[4], rt[4];
  ldmatrix_x4(r, rows + lane * 8);
  ldmatrix_x4_trans(rt, rows + lane * 8);
  for (int i = 0; i < 4; ++i) { out[lane * 8 + i] = r[i]; out[lane * 8 + 4 + i] = rt[i]; }
}
extern "C" __global__ void async_probe(const float* in, float* out) {
  __shared__ float stage[8];
  stage[threadIdx.x] = -1.f;
  cp_async4(stage + threadIdx.x, in + threadIdx.x, true);
  cp_async_commit();
  cp_async4(stage + 4 + threadIdx.x, in + 4 + threadIdx.x, true);
  cp_async_commit();
  out[threadIdx.x] = stage[threadIdx.x];       // not waited for: still -1
  cp_async_wait<1>();                          // the first group has landed, the second may not
  out[4 + threadIdx.x] = stage[threadIdx.x];
  cp_async_wait<0>();
  out[8 + threadIdx.x] = stage[4 + threadIdx.x];
}
extern "C" __global__ void aligned_probe(const float* in, int copy_skew, int row_skew) {
  __shared__ __align__(16) float stage[8];
  __shared__ __align__(16) unsigned short rows[32 * 8 + 8];
  cp_async16((char*)stage + copy_skew, (const char*)in + copy_skew, true);
  cp_async_commit();
  cp_async_wait<0>();
  unsigned r[4];
  ldmatrix_x4(r, (const unsigned short*)((const char*)(rows + threadIdx.x * 8) + row_skew));
}
extern "C" __global__ void poison_probe(float* out) {
  __shared__ float written_by_block_0[2];
  if (blockIdx.x == 0) written_by_block_0[threadIdx.x] = 1.f;
  __syncthreads();
  out[blockIdx.x * 2 + threadIdx.x] = written_by_block_0[threadIdx.x];
}
)";

LaunchConfig threads(unsigned n) {
  LaunchConfig l;
  l.block[0] = n;
  return l;
}

template <class T>
std::uint64_t address(std::vector<T>& v) {
  return reinterpret_cast<std::uint64_t>(v.data());
}

class TensorOpsOnTheEmulator : public ::testing::Test {
 protected:
  testing::ScratchDir scratch;
  EmulatedModule module{
      kProbes, {}, {"mma_probe", "ldmatrix_probe", "async_probe", "aligned_probe", "poison_probe"}, scratch.path()};
};

TEST_F(TensorOpsOnTheEmulator, MmaFragmentsComputeTheProductOfTheIsaLayouts) {
  std::vector<std::uint16_t> a(16 * 16), b(16 * 8);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float_to_bf16(std::ldexp(float(i % 13) - 6.f, -2));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float_to_bf16(float(i % 7) - 3.f + (i % 2 ? 0.5f : 0.f));
  std::vector<float> c(16 * 8, std::nanf(""));
  KernelArgs args;
  args.pointer(address(a)).pointer(address(b)).pointer(address(c));
  module.launch("mma_probe", threads(32), args);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double ref = 1.0;
      for (int k = 0; k < 16; ++k) ref += double(bf16_to_float(a[m * 16 + k])) * bf16_to_float(b[k * 8 + n]);
      EXPECT_EQ(c[m * 8 + n], ref) << "C[" << m << "][" << n << "]";  // small integers and quarters: exact
    }
}

TEST_F(TensorOpsOnTheEmulator, LdmatrixGivesEachLaneItsRowOrColumnPair) {
  std::vector<std::uint16_t> rows(32 * 8);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::uint16_t>(i);  // element = its index
  std::vector<unsigned> out(32 * 8, 0xdeadbeef);
  KernelArgs args;
  args.pointer(address(rows)).pointer(address(out));
  module.launch("ldmatrix_probe", threads(32), args);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned row = 8 * i + lane / 4, col = 2 * (lane % 4);  // matrix i: rows 8i..8i+7
      EXPECT_EQ(out[lane * 8 + i], (row * 8 + col) | ((row * 8 + col + 1) << 16)) << "lane " << lane << " r" << i;
      const unsigned trow = 8 * i + 2 * (lane % 4), tcol = lane / 4;
      EXPECT_EQ(out[lane * 8 + 4 + i], (trow * 8 + tcol) | ((trow * 8 + 8 + tcol) << 16))
          << "lane " << lane << " trans r" << i;
    }
}

TEST_F(TensorOpsOnTheEmulator, CopiesLandOnlyWhenTheirGroupIsWaitedFor) {
  std::vector<float> in{10, 11, 12, 13, 20, 21, 22, 23}, out(12, 0.f);
  KernelArgs args;
  args.pointer(address(in)).pointer(address(out));
  module.launch("async_probe", threads(4), args);
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(out[t], -1.f) << "thread " << t << " saw its copy before waiting";
    EXPECT_EQ(out[4 + t], in[t]) << "thread " << t;
    EXPECT_EQ(out[8 + t], in[4 + t]) << "thread " << t;
  }
}

// A GPU fails the launch of a kernel whose cp.async or ldmatrix address is off its alignment; so does the emulation,
// so that a template that would fault on a GPU is not a verified one here.
TEST_F(TensorOpsOnTheEmulator, AMisalignedCopyOrMatrixRowFailsTheLaunch) {
  std::vector<float> in(16, 1.f);
  const auto launch = [&](int copy_skew, int row_skew) {
    KernelArgs args;
    args.pointer(address(in)).i32(copy_skew).i32(row_skew);
    try {
      module.launch("aligned_probe", threads(32), args);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(launch(0, 0), "");
  for (const int skew : {4, 8})
    EXPECT_NE(launch(skew, 0).find("misaligned address: cp.async of 16 bytes"), std::string::npos) << skew;
  EXPECT_NE(launch(0, 8).find("misaligned address: an ldmatrix row"), std::string::npos);
}

// A block finds static shared memory as a GPU leaves it, holding nothing it wrote: here NaN, never an earlier block's
// values or zeros, so that a kernel reading what it never wrote is a wrong result.
TEST_F(TensorOpsOnTheEmulator, StaticSharedMemoryHoldsNothingABlockDidNotWrite) {
  std::vector<float> out(4, 0.f);
  LaunchConfig l = threads(2);
  l.grid[0] = 2;
  KernelArgs args;
  args.pointer(address(out));
  module.launch("poison_probe", l, args);
  EXPECT_EQ(out[0], 1.f);
  EXPECT_EQ(out[1], 1.f);
  EXPECT_TRUE(std::isnan(out[2]) && std::isnan(out[3])) << out[2] << " " << out[3];
}

}  // namespace
}  // namespace kforge::kernels::cuda
