#pragma once
// OpenBLAS chooses its kernels from the CPU's model number when it loads. On a CPU it does not know (a virtual
// machine that hides the model, as the development and CI machines do: "Intel(R) Xeon(R) Processor") it falls back
// to its SSE3 "Prescott" kernels: double GEMM at 16 GFLOP/s where the CPU's AVX-512 kernels give 66 (measured on
// such a machine), for the double reference's checks of served engines and for the gemm family's `openblas`
// baseline alike, which would then be a quarter of the OpenBLAS that users of this CPU get. OpenBLAS's own remedy is
// the OPENBLAS_CORETYPE environment variable, read when the library loads.
#include <string>

namespace kforge::kernels {

// The kernel family this CPU's features support ("SkylakeX" with AVX-512 F/DQ/BW/VL, "Haswell" with AVX2 and FMA),
// or "" when OpenBLAS's own choice (`corename`) is not its generic Prescott fallback or the CPU has neither.
std::string openblas_kernels_for(const std::string& corename);

// At the top of main(), before anything else runs: when OPENBLAS_CORETYPE is unset and openblas_kernels_for()
// names a better family than the one OpenBLAS loaded, sets OPENBLAS_CORETYPE and executes this program again with
// the same arguments (once: the variable is set the second time). Returns when nothing needed changing, or when
// re-executing failed (the program then runs with OpenBLAS's own choice).
void use_openblas_kernels_for_this_cpu(char** argv);

}  // namespace kforge::kernels
