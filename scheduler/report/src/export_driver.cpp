#include "export_driver.hpp"

namespace kforge::scheduler {
namespace {

// C = A * B, row-major fp32, as kernels/core/include/kforge/kernels/gemm_problem.hpp defines kforge_gemm. The driver
// checks sampled elements against a double-precision product with kforge's own bound (gemm_problem.cpp: |c - ref| <= 2
// K FLT_EPSILON sum_k |a_ik b_kj| + 1e-30) and prints the median of repeated timed calls on fresh inputs.
constexpr const char* kGemmDriver =
    R"(// Reruns an exported kforge gemm kernel outside kforge: ./run.sh (or: run SO M N K [REPEATS]).
#include <dlfcn.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using GemmFn = void (*)(int, int, int, const float*, int, const float*, int, float*, int);

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s KERNEL.so M N K [REPEATS]\n", argv[0]);
    return 2;
  }
  void* so = dlopen(argv[1], RTLD_NOW);
  if (!so) { std::fprintf(stderr, "%s\n", dlerror()); return 1; }
  auto gemm = reinterpret_cast<GemmFn>(dlsym(so, "kforge_gemm"));
  if (!gemm) { std::fprintf(stderr, "no kforge_gemm in %s\n", argv[1]); return 1; }
  const int M = std::atoi(argv[2]), N = std::atoi(argv[3]), K = std::atoi(argv[4]);
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 20;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> A(size_t(M) * K), B(size_t(K) * N), C(size_t(M) * N);
  std::vector<double> times;
  double worst = 0.0;
  for (int r = 0; r < repeats; ++r) {
    for (auto& x : A) x = u(rng);
    for (auto& x : B) x = u(rng);
    std::fill(C.begin(), C.end(), NAN);
    const auto t0 = std::chrono::steady_clock::now();
    gemm(M, N, K, A.data(), K, B.data(), N, C.data(), N);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    for (int i = 0; i < M; i += std::max(1, M / 7))
      for (int j = 0; j < N; j += std::max(1, N / 7)) {
        double ref = 0.0, magnitude = 0.0;
        for (int k = 0; k < K; ++k) {
          const double p = double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
          ref += p;
          magnitude += std::fabs(p);
        }
        const double bound = 2.0 * K * FLT_EPSILON * magnitude + 1e-30;  // kforge's tolerance for this element
        worst = std::max(worst, std::fabs(ref - C[size_t(i) * N + j]) / bound);
        if (!std::isfinite(C[size_t(i) * N + j])) worst = INFINITY;
      }
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("M=%d N=%d K=%d: median %.4f ms over %d calls, %.2f GFLOP/s, largest error %.3g of kforge's bound (%s)\n",
              M, N, K, median, repeats, 2.0 * M * N * K / (median * 1e6), worst, worst <= 1.0 ? "ok" : "WRONG");
  return worst <= 1.0 ? 0 : 3;
}
)";

}  // namespace

std::string rerun_driver_source(const std::string& backend, const std::string& family) {
  return backend == "host" && family == "gemm" ? kGemmDriver : "";
}

std::string rerun_script(const std::string& compiler, const std::string& id,
                         const std::map<std::string, std::int64_t>& problem) {
  const auto size = [&](const char* key) {
    const auto it = problem.find(key);
    return it == problem.end() ? std::string("256") : std::to_string(it->second);  // gemm::main_shape's default
  };
  return "#!/bin/sh\n# Builds the kernel (build.sh) and a driver that needs nothing of kforge, then checks and times "
         "it\n"
         "# at the campaign's problem size.\nset -eu\ncd \"$(dirname \"$0\")\"\n./build.sh\n" +
         compiler + " -O2 -std=c++17 -o run run.cpp -ldl\n./run ./" + id + ".so " + size("M") + " " + size("N") + " " +
         size("K") + " \"$@\"\n";
}

}  // namespace kforge::scheduler
