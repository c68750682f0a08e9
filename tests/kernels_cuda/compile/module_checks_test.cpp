// Checks that need no GPU: device-side launches cannot get past the compile stage (NVRTC refuses them, and
// relocatable images are refused), static device memory counts against memory_limit_mb, the output guards name
// what a kernel wrote outside its output, and every exploit kernel the gpu tests run compiles.
#include "module_checks.hpp"
#include "case_run.hpp"
#include "cuda_test_support.hpp"
#include "exploit_kernels.hpp"

namespace kforge::kernels::cuda::test {
namespace {

constexpr const char* kFireAndForget = R"(
extern "C" __global__ void side_work(float* C) { C[threadIdx.x] = 1.f; }
extern "C" __global__ void kforge_gemm(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K) {
  if (threadIdx.x == 0) side_work<<<1, 32, 0, cudaStreamFireAndForget>>>(C);
}
)";

std::string elf_header(unsigned type) {
  std::string h(64, '\0');
  h.replace(0, 4,
            "\x7f"
            "ELF");
  h[16] = static_cast<char>(type);
  return h;
}

TEST(ModuleChecks, OnlyExecutableElfImagesAreLoadable) {
  EXPECT_EQ(image_rejection(elf_header(2)), std::nullopt);
  const auto relocatable = image_rejection(elf_header(1));
  ASSERT_TRUE(relocatable.has_value());
  EXPECT_NE(relocatable->find("relocatable"), std::string::npos) << *relocatable;
  EXPECT_TRUE(image_rejection("not an image at all").has_value());
  EXPECT_TRUE(image_rejection("").has_value());
}

TEST(ModuleChecks, StaticDeviceMemoryIsReadFromThePtxasLog) {
  EXPECT_EQ(static_device_bytes("ptxas info    : 4195504 bytes gmem\nptxas info    : Used 8 registers"), 4195504);
  EXPECT_EQ(static_device_bytes("ptxas info    : 0 bytes gmem"), 0);
  EXPECT_EQ(static_device_bytes("ptxas info    : Used 8 registers"), -1);
  EXPECT_EQ(device_memory_rejection(std::int64_t{64} << 20, 64), std::nullopt) << "exactly the limit fits";
  EXPECT_TRUE(device_memory_rejection((std::int64_t{64} << 20) + 1, 64).has_value());
  EXPECT_EQ(device_memory_rejection(std::int64_t{1} << 40, 0), std::nullopt) << "a limit of 0 allows any";
}

TEST(OutputGuards, UntouchedGuardsAreClean) {
  const Bytes guarded(2 * kGuardBytes + 64, std::byte{kPoison});
  EXPECT_EQ(guard_violation(guarded, 0), "");
}

TEST(OutputGuards, WritesPastTheEndAndBeforeTheStartAreNamedWithTheirOffsets) {
  Bytes guarded(2 * kGuardBytes + 64, std::byte{kPoison});
  guarded[kGuardBytes + 64 + 8] = std::byte{0};  // 8 bytes past the end of a 64-byte output
  const std::string after = guard_violation(guarded, 1);
  EXPECT_NE(after.find("output buffer 1"), std::string::npos) << after;
  EXPECT_NE(after.find("after its end (first at byte +8"), std::string::npos) << after;
  EXPECT_EQ(after.find("before its start"), std::string::npos) << after;

  guarded[kGuardBytes - 4] = std::byte{0};  // o[-1] of a float output
  const std::string both = guard_violation(guarded, 0);
  EXPECT_NE(both.find("before its start (from byte -4)"), std::string::npos) << both;
  EXPECT_NE(both.find("after its end"), std::string::npos) << both;
}

TEST_F(CudaBackendTest, DeviceSideLaunchIsRefusedByNvrtcWithoutRdc) {
  auto b = backend("gemm");
  const CompileResult r =
      compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome(), kFireAndForget), "hopper");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, jobs::Status::compile_error) << r.log;
}

TEST_F(CudaBackendTest, RelocatableDeviceCodeIsACompileErrorBeforeAnyGpuTime) {
  auto b = backend("gemm");
  jobs::Candidate c = candidate(b->cuda_family(), b->cuda_family().default_genome(), kFireAndForget);
  c.compile_flags = "-rdc=true";  // with it NVRTC accepts the launch and leaves the device runtime unresolved
  jobs::assign_id(c);
  const CompileResult r = compile(*b, c, "hopper");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.status, jobs::Status::compile_error) << r.log;
  EXPECT_NE(r.log.find("relocatable device code"), std::string::npos) << r.log;
}

TEST_F(CudaBackendTest, StaticDeviceMemoryOverTheMemoryLimitIsAResourceReject) {
  auto b = backend("gemm");
  const std::string source = std::string("__device__ float hoard[4 << 20];  // 16 MiB\n") + R"(
extern "C" __global__ void kforge_gemm(const unsigned short* A, const unsigned short* B, float* C, int M, int N, int K) {
  hoard[threadIdx.x] = C[threadIdx.x];
  C[threadIdx.x] = hoard[(threadIdx.x + 1) % 32];
}
)";
  const jobs::Candidate c = candidate(b->cuda_family(), b->cuda_family().default_genome(), source);
  settings_.memory_limit_mb = 8;
  const CompileResult over = compile(*b, c, "hopper");
  EXPECT_EQ(over.status, jobs::Status::resource_reject) << over.log;
  EXPECT_NE(over.log.find("memory_limit_mb = 8"), std::string::npos) << over.log;
  settings_.memory_limit_mb = 32;
  EXPECT_TRUE(compile(*b, c, "hopper").ok) << "the same module within a larger limit passes";
}

// The kernels of tests/kernels_cuda/gpu compile for both targets, so a gpu test fails only at run time.
TEST_F(CudaBackendTest, EveryExploitKernelOfTheGpuTestsCompiles) {
  std::vector<std::pair<std::string, std::string>> sources = {{"gemm", honest_naive_gemm()},
                                                              {"gemm", gemm_missing_row_bound()},
                                                              {"gemm", gemm_deferred_by_one_launch()},
                                                              {"gemm", gemm_memoizer(1, 256, 256, 256)},
                                                              {"gemm", gemm_memoizer(2, 256, 256, 256)}};
  for (const std::string family : {"gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"}) {
    const auto f = make_cuda_family(family);
    for (Fault fault : {Fault::illegal_address, Fault::trap, Fault::hang})
      sources.emplace_back(family, faulting_kernel(f->entry_point(), fault));
    sources.emplace_back(
        family, with_stray_write(f->render(f->default_genome()), f->entry_point(), stray_write_outside_output(family)));
  }
  for (const char* target : {"hopper", "blackwell"}) {
    for (const auto& [family, source] : sources) {
      auto b = backend(family);
      const CompileResult r =
          compile(*b, candidate(b->cuda_family(), b->cuda_family().default_genome(), source), target);
      EXPECT_TRUE(r.ok) << target << " " << family << ":\n" << r.log << "\n--- source ---\n" << source;
    }
  }
}

}  // namespace
}  // namespace kforge::kernels::cuda::test
