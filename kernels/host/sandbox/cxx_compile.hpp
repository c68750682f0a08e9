#pragma once
// Compiling a host candidate: the source into DIR/candidate.cpp, the system compiler (evaluation.compiler with
// the campaign's and the candidate's flags) into DIR/candidate.so, under the compile timeout. One place for
// every host family.
#include <string>

#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::host {

// ctx.settings, or std::invalid_argument naming the backend.
const jobs::EvalSettings& settings_of(const EvalContext& ctx, const char* backend);

// compile_error (with the compiler's output, or the timeout) when it fails; resource figures stay -1.
CompileResult compile_shared_object(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx,
                                    const char* backend);

}  // namespace kforge::kernels::host
