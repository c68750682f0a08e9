// OpenBLAS's kernels for this CPU (kforge/kernels/openblas_kernels.hpp): its generic fallback is replaced by the
// family the CPU's features support, any deliberate choice stands, and kforge-eval and engine_serve load OpenBLAS
// with that family (OpenBLAS itself says which, with OPENBLAS_VERBOSE=2).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "kforge/kernels/openblas_kernels.hpp"

namespace kforge::kernels {
namespace {

std::string cpu_family() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

// The last "Core: NAME" OpenBLAS printed while `program` ran (it prints one each time the library loads).
std::string core_loaded_by(const std::string& program) {
  const std::string command = "env -u OPENBLAS_CORETYPE OPENBLAS_VERBOSE=2 " + program + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string last;
  std::array<char, 512> line{};
  while (pipe != nullptr && std::fgets(line.data(), line.size(), pipe) != nullptr) {
    const std::string text = line.data();
    if (text.rfind("Core: ", 0) == 0) last = text.substr(6, text.find_last_not_of("\r\n") - 5);
  }
  if (pipe != nullptr) ::pclose(pipe);
  return last;
}

TEST(OpenblasKernels, TheGenericFallbackIsReplacedAndADeliberateChoiceStands) {
  EXPECT_EQ(openblas_kernels_for("Prescott"), cpu_family());
  EXPECT_EQ(openblas_kernels_for("Haswell"), "");
  EXPECT_EQ(openblas_kernels_for("Zen"), "");
}

TEST(OpenblasKernels, KforgeEvalAndEngineServeRunOnTheKernelsOfThisCpu) {
  for (const char* program : {"kforge-eval --version", "engine_serve --help"}) {
    const std::string core = core_loaded_by(std::string(KFORGE_BINARY_DIR) + "/bin/" + program);
    ASSERT_FALSE(core.empty()) << program << ": OpenBLAS printed no Core line";
    if (!cpu_family().empty()) {
      EXPECT_NE(core, "Prescott") << program;
    }
  }
}

}  // namespace
}  // namespace kforge::kernels
