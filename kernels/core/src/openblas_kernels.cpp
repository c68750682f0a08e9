#include "kforge/kernels/openblas_kernels.hpp"

#include <cblas.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <cstdlib>

namespace kforge::kernels {

std::string openblas_kernels_for(const std::string& corename) {
  if (corename != "Prescott") return "";  // OpenBLAS recognised the CPU (or chose on purpose): its choice stands
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return "";
}

void use_openblas_kernels_for_this_cpu(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;
  const char* loaded = openblas_get_corename();
  const std::string better = openblas_kernels_for(loaded != nullptr ? loaded : "");
  if (better.empty()) return;
  // The program's own path, not /proc/self/exe: the process's name (ps, top, Slurm's accounting) is that file's.
  std::array<char, PATH_MAX> self{};
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0) return;
  ::setenv("OPENBLAS_CORETYPE", better.c_str(), 1);
  ::execv(self.data(), argv);  // returns only on failure: then OpenBLAS's own kernels serve
  ::unsetenv("OPENBLAS_CORETYPE");
}

}  // namespace kforge::kernels
