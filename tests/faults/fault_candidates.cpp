#include "fault_candidates.hpp"

namespace kforge::faults {
namespace {

// Every candidate starts with the same prologue; `body` is the inside of kforge_gemm.
std::string kernel(const std::string& includes, const std::string& body) {
  return includes +
         "\nextern \"C\" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb,\n"
         "                            float* C, int ldc) {\n" +
         body + "}\n";
}

const char* const kNaiveLoops = R"(  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k) sum += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = sum;
    }
)";

}  // namespace

std::vector<FaultCandidate> fault_candidates() {
  using jobs::Status;
  return {
      {"segfault", kernel("", "  volatile float* volatile p = nullptr;\n  *p = C[0];\n"), Status::crash, "SIGSEGV"},
      {"spin forever", kernel("", "  volatile unsigned long n = 0;\n  for (;;) n = n + 1;\n"), Status::timeout,
       "timed out"},
      {"allocate without bound",
       kernel("#include <vector>",
              "  std::vector<std::vector<char>> hoard;\n  for (;;) hoard.emplace_back(16u << 20, 'x');\n"),
       Status::crash, "out of memory"},
      {"exit(0)", kernel("#include <cstdlib>", "  std::exit(0);\n"), Status::crash, "before reporting a result"},
      {"wrong values", kernel("", std::string(kNaiveLoops) + "  C[(M - 1) * ldc + (N - 1)] += 1.0f;\n"),
       Status::wrong_result, ""},
      {"write NaN",
       kernel("#include <cmath>",
              "  for (int i = 0; i < M; ++i)\n    for (int j = 0; j < N; ++j) C[i * ldc + j] = NAN;\n"),
       Status::wrong_result, ""},
      {"modify inputs", kernel("", std::string(kNaiveLoops) + "  const_cast<float*>(A)[0] = 0.0f;\n"),
       Status::cheat_detected, "modified"},
      {"naive and correct", kernel("", kNaiveLoops), Status::ok, "verified"},
  };
}

}  // namespace kforge::faults
