#pragma once
// How run_sandboxed reports what body() did not return normally, inside ChildOutcome::payload.
//
// A completed child's payload is exactly what body() returned, unless it starts with one of these prefixes:
//   "!error:<what>"   body() threw; <what> is the exception's what() ("out of memory: ..." for std::bad_alloc)
//   "!sandbox:<why>"  the child could not set up its limits or seccomp filter (an infrastructure fault)
// Bodies must therefore not return text that starts with '!'; run_sandboxed enforces that by turning such a
// return value into a "!error:" payload.
#include <string>
#include <string_view>

#include "kforge/mpi_eval/sandbox.hpp"

namespace kforge::mpi_eval {

inline constexpr std::string_view kBodyErrorPrefix = "!error:";
inline constexpr std::string_view kSandboxErrorPrefix = "!sandbox:";
inline constexpr std::string_view kOutOfMemoryPrefix = "out of memory: ";

inline bool is_body_error(const ChildOutcome& o) {
  return o.end == ChildEnd::completed && o.payload.starts_with(kBodyErrorPrefix);
}
inline bool is_sandbox_error(const ChildOutcome& o) {
  return o.end == ChildEnd::completed && o.payload.starts_with(kSandboxErrorPrefix);
}
// The message after the prefix of a body or sandbox error.
inline std::string error_message(const ChildOutcome& o) {
  const auto colon = o.payload.find(':');
  return colon == std::string::npos ? o.payload : o.payload.substr(colon + 1);
}
// A child that completed with a payload body() really returned.
inline bool returned_normally(const ChildOutcome& o) {
  return o.end == ChildEnd::completed && !o.payload.starts_with('!');
}

}  // namespace kforge::mpi_eval
