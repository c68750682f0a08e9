#pragma once
// Writing to a pipe or file descriptor from code that must not throw or allocate much: a forked child before it
// execs or exits (the candidate process, kforged's helpers that act as a user).
#include <string_view>

namespace kforge::jobs {

// Writes every byte, retrying after signals; false when the descriptor stopped taking them (a closed pipe).
bool write_all(int fd, std::string_view bytes) noexcept;

}  // namespace kforge::jobs
