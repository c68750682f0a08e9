// Candidates that must not reach a GPU: compile errors with NVRTC's log, and resource_reject for spills,
// shared memory and threads over the architecture's limits.
#include "cuda_test_support.hpp"

namespace kforge::kernels::cuda::test {
namespace {

// 64 live accumulators under __launch_bounds__(1024, 2): ptxas may use 32 registers per thread, so it spills.
constexpr const char* kSpillingGemm = R"(
extern "C" __global__ void __launch_bounds__(1024, 2)
kforge_gemm(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K) {
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = C[i * N + threadIdx.x];
  for (int r = 0; r < K; ++r) {
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = acc[i] * acc[(i + 1) & 63] + C[r * 64 + i];
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += acc[i];
  C[threadIdx.x] = s;
}
)";

TEST_F(CudaBackendTest, SyntaxErrorIsACompileErrorWithTheNvrtcLog) {
  auto b = backend("gemm");
  const std::string source = "extern \"C\" __global__ void kforge_gemm(float* C) { C[0] = undefined_value; }\n";
  const CompileResult r = compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome(), source), "hopper");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("undefined_value"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
}

TEST_F(CudaBackendTest, SourceWithoutTheEntryPointIsACompileError) {
  auto b = backend("gemm");
  const std::string source = "extern \"C\" __global__ void something_else(float* C) { C[0] = 1.f; }\n";
  const CompileResult r = compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome(), source), "hopper");
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("kforge_gemm"), std::string::npos) << r.log;
}

TEST_F(CudaBackendTest, SpillsBeyondTheLimitAreAResourceReject) {
  auto strict = backend("gemm", /*max_spill_bytes=*/0);
  const jobs::Candidate c = candidate(strict->cuda_family(), strict->cuda_family().default_genome(), kSpillingGemm);
  const CompileResult r = compile(*strict, c, "hopper");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, jobs::Status::resource_reject) << r.log;
  EXPECT_GT(r.resources.spill_bytes, 0);
  EXPECT_NE(r.log.find("spill stores"), std::string::npos) << r.log;

  auto lenient = backend("gemm", /*max_spill_bytes=*/1 << 20);
  EXPECT_TRUE(compile(*lenient, c, "hopper").ok) << "the same figures within a larger limit pass";
}

TEST_F(CudaBackendTest, StaticSharedMemoryOverTheMaximumIsAResourceReject) {
  auto b = backend("gemm");
  const std::string source = R"(
extern "C" __global__ void kforge_gemm(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K) {
  __shared__ float tile[60000];  // 240000 B: more than the 227 KiB any block may have
  tile[threadIdx.x] = C[threadIdx.x];
  __syncthreads();
  C[threadIdx.x] = tile[(threadIdx.x + 1) % 60000];
}
)";
  const CompileResult r =
      compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome(), source), "blackwell");
  EXPECT_EQ(r.status, jobs::Status::resource_reject) << r.log;
  EXPECT_GT(r.resources.shared_bytes, 227 * 1024);
  EXPECT_NE(r.log.find("shared memory"), std::string::npos) << r.log;
}

TEST_F(CudaBackendTest, DynamicSharedMemoryOverTheMaximumIsRejectedBeforeCompiling) {
  auto b = backend("kda");
  jobs::Genome g = b->cuda_family().default_genome();
  g.params["CHUNK"] = std::int64_t{64};
  g.params["BV"] = std::int64_t{128};
  g.params["STAGES"] = std::int64_t{3};
  const CompileResult r = compile(*b, candidate(b->cuda_family(), g), "hopper");
  EXPECT_EQ(r.status, jobs::Status::resource_reject) << r.log;
  EXPECT_NE(r.log.find("dynamic shared memory"), std::string::npos) << r.log;
  EXPECT_EQ(r.compile_ms, 0.0) << "no NVRTC time spent on it";
}

TEST_F(CudaBackendTest, MoreThan1024ThreadsPerBlockIsAResourceReject) {
  auto b = backend("rmsnorm");
  jobs::Genome g = b->cuda_family().default_genome();
  g.params["THREADS_PER_ROW"] = std::int64_t{1024};
  g.params["ROWS_PER_BLOCK"] = std::int64_t{2};
  const CompileResult r = compile(*b, candidate(b->cuda_family(), g), "hopper");
  EXPECT_EQ(r.status, jobs::Status::resource_reject) << r.log;
  EXPECT_NE(r.log.find("2048 threads"), std::string::npos) << r.log;
}

TEST_F(CudaBackendTest, GenomeOutsideTheSpaceIsACompileError) {
  auto b = backend("gemm");
  jobs::Genome g = b->cuda_family().default_genome();
  g.params["STAGES"] = std::int64_t{1};  // the cp.async ring needs at least 2
  jobs::Candidate c = candidate(b->cuda_family(), g, "// any source\n");
  const CompileResult r = b->compile(c.source, c, context("hopper"));
  EXPECT_EQ(r.status, jobs::Status::compile_error);
  EXPECT_NE(r.log.find("STAGES"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace kforge::kernels::cuda::test
