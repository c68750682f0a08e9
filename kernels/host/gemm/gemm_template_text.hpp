#pragma once
// The text pieces the gemm host template is assembled from; each piece is plain, readable C++.
#include <string>

#include "gemm/gemm_template.hpp"

namespace kforge::kernels::host::text {

std::string header(const GemmTemplateParams& p);  // comment with the genome, includes, constants
std::string vector_helpers(int vec);              // the vf type, load/store, the tile step and store
std::string packing();                            // pack_a / pack_b and the static panel buffers
std::string packed_micro_kernel();
std::string packed_macro_kernel();
std::string direct_micro_kernel();  // PACK=0: reads A and B in place
std::string direct_macro_kernel();
std::string entry_point(const GemmTemplateParams& p);  // extern "C" kforge_gemm with the block loops

}  // namespace kforge::kernels::host::text
