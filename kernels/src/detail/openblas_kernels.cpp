#include "kforge/kernels/openblas_kernels.hpp"

#include <cblas.h>
#include <unistd.h>

#include <cstdlib>

namespace kforge::kernels {

std::string openblas_kernels_for(const std::string& corename) {
  if (corename != "Prescott") return "";  // OpenBLAS recognised the CPU (or chose on purpose): its choice stands
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
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
  ::setenv("OPENBLAS_CORETYPE", better.c_str(), 1);
  ::execv("/proc/self/exe", argv);  // returns only on failure: then OpenBLAS's own kernels serve
}

}  // namespace kforge::kernels
