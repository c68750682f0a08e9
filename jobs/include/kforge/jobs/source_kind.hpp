#pragma once
// What language a candidate's source is in, from the text itself: the cuda backend assembles PTX with ptxas and
// compiles anything else as CUDA C++ with NVRTC; the host backend compiles C++. An agent may declare the kind of
// a child's source (`source_kind:` in its children file, docs/agents.md); kforge checks it against this.
#include <string_view>

namespace kforge::jobs {

// True when the source's first statement (after blank lines and // comments) is a PTX `.version` directive.
bool is_ptx_source(std::string_view source);

}  // namespace kforge::jobs
