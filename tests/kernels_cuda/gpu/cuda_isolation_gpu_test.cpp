// One candidate's crash never poisons the rank's next candidate: each is evaluated as the rank does it
// (mpi_eval's evaluate_candidate: compile here, load/verify/time in a sandboxed child with a fresh context), and
// an honest candidate verifies after an illegal address, a trap and a hang. This test process plays the rank,
// so it never initialises CUDA itself: a context created before fork() would be unusable in every child. The
// GPU is probed in a sandboxed child too, and the test ends by checking that libcuda was never loaded here.
#include <dlfcn.h>

#include "cascade.hpp"
#include "exploit_kernels.hpp"
#include "gpu_test_support.hpp"
#include "kforge/mpi_eval/child_payload.hpp"
#include "nvrtc_api.hpp"

namespace kforge::kernels::cuda::test {
namespace {

bool libcuda_loaded_in_this_process() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

class IsolationTest : public CudaBackendTest {
 protected:
  void SetUp() override {
    CudaBackendTest::SetUp();
    ASSERT_FALSE(libcuda_loaded_in_this_process()) << "nothing before this test may initialise CUDA in the rank";
    probe_ = probe_gpu_in_a_child();
    manifest_.target = has_gpu() ? probe_.substr(7) : "hopper";
    manifest_.backend = "cuda";
    manifest_.family = "gemm";
    manifest_.seed = 7;
    manifest_.settings = settings_;
    manifest_.settings.problem = {{"M", 512}, {"N", 512}, {"K", 512}};
    manifest_.settings.wall_timeout_s = 60;
    manifest_.settings.min_repeats = 3;
    manifest_.settings.max_repeats = 5;
    manifest_.settings.time_cap_s = 0.5;
  }

  // "target:hopper", "target:blackwell", or why there is no device to test on. The probe's child has no
  // limits, so a sandbox limit that breaks CUDA fails the evaluations below instead of skipping the test.
  std::string probe_gpu_in_a_child() {
    const mpi_eval::Limits none{.wall_s = 120,
                                .cpu_s = 240,
                                .memory_bytes = 0,
                                .file_bytes = 1LL << 30,
                                .forbid_processes = false,
                                .limit_address_space = false};
    const mpi_eval::ChildOutcome o = mpi_eval::run_sandboxed(none, root_, []() -> std::string {
      if (const std::string why = why_no_cuda_device(); !why.empty()) return "no CUDA device: " + why;
      const std::string target = target_of_this_gpu();
      return target.empty() ? "the GPU is neither sm_90 nor sm_100" : "target:" + target;
    });
    return mpi_eval::returned_normally(o) ? o.payload : "the GPU probe child " + o.describe() + "\n" + o.output_tail;
  }

  jobs::EvalRecord evaluate(CudaBackend& b, const std::string& source, double wall_timeout_s = 60) {
    jobs::TaskManifest m = manifest_;
    m.settings.wall_timeout_s = wall_timeout_s;
    const jobs::Candidate c = candidate(b.cuda_family(), b.cuda_family().default_genome(), source);
    return mpi_eval::evaluate_candidate(b, c, m, root_ / "eval", 0);
  }

  bool has_gpu() const { return probe_.rfind("target:", 0) == 0; }

  jobs::TaskManifest manifest_;
  std::string probe_;
};

// The node's fault, not the candidate's: on a node without a GPU the run is an infra_error naming why, so
// the candidate is neither blamed in the lessons nor credited as a crash.
TEST_F(IsolationTest, WithoutAGpuTheRunIsAnInfraErrorNotTheCandidatesFault) {
  if (has_gpu()) GTEST_SKIP() << "this node has a GPU; the check is for nodes without one";
  try {
    nvrtc();
  } catch (const NoNvrtc& e) {  // a bare node (tools/gpu-bundle-drill.sh): nothing compiles, so nothing to run
    GTEST_SKIP() << "no CUDA device, and " << e.what();
  }
  auto b = backend("gemm");
  const jobs::EvalRecord r = evaluate(*b, honest_naive_gemm());
  EXPECT_EQ(r.status, jobs::Status::infra_error) << r.evidence;
  EXPECT_NE(r.evidence.find("no CUDA device"), std::string::npos) << r.evidence;
  EXPECT_FALSE(libcuda_loaded_in_this_process());
}

TEST_F(IsolationTest, HonestCandidateVerifiesAfterAnIllegalAddressATrapAndAHang) {
  if (!has_gpu()) GTEST_SKIP() << probe_;
  auto b = backend("gemm");
  const std::string honest = honest_naive_gemm();

  const jobs::EvalRecord first = evaluate(*b, honest);
  ASSERT_EQ(first.status, jobs::Status::ok) << first.evidence;

  const jobs::EvalRecord illegal = evaluate(*b, faulting_kernel("kforge_gemm", Fault::illegal_address));
  EXPECT_EQ(illegal.status, jobs::Status::crash) << illegal.evidence;
  EXPECT_NE(illegal.evidence.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << illegal.evidence;
  const jobs::EvalRecord after_illegal = evaluate(*b, honest + "// after the illegal address\n");
  EXPECT_EQ(after_illegal.status, jobs::Status::ok) << after_illegal.evidence;

  const jobs::EvalRecord trap = evaluate(*b, faulting_kernel("kforge_gemm", Fault::trap));
  EXPECT_EQ(trap.status, jobs::Status::crash) << trap.evidence;
  EXPECT_NE(trap.evidence.find("CUDA_ERROR_"), std::string::npos) << trap.evidence;
  const jobs::EvalRecord after_trap = evaluate(*b, honest + "// after the trap\n");
  EXPECT_EQ(after_trap.status, jobs::Status::ok) << after_trap.evidence;

  const jobs::EvalRecord hang = evaluate(*b, faulting_kernel("kforge_gemm", Fault::hang), /*wall_timeout_s=*/5);
  EXPECT_EQ(hang.status, jobs::Status::timeout) << hang.evidence;
  const jobs::EvalRecord after_hang = evaluate(*b, honest + "// after the hang\n");
  EXPECT_EQ(after_hang.status, jobs::Status::ok) << after_hang.evidence;

  EXPECT_FALSE(libcuda_loaded_in_this_process()) << "the rank initialised CUDA: contexts must be made in children";
}

}  // namespace
}  // namespace kforge::kernels::cuda::test
