#pragma once
// The end of a task's log or Slurm output file for a record's evidence, or why there is none: a failure's
// evidence must point at a file that exists or say that it does not.
#include <filesystem>
#include <string>

#include "kforge/jobs/text_file.hpp"

namespace kforge::scheduler {

inline std::string log_excerpt(const std::filesystem::path& file, int max_lines = 12) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    return "its output file " + file.string() +
           " does not exist (the task never started, or its output file could not be created)";
  }
  std::string text;
  try {
    text = jobs::read_text_file(file);
  } catch (const std::exception& e) {
    return "its output file " + file.string() + " cannot be read: " + e.what();
  }
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t from = text.size();
  for (int lines = 0; from > 0; --from) {
    if (text[from - 1] == '\n' && ++lines == max_lines) break;
  }
  const std::string tail = text.substr(from);
  return "its output " + file.string() + (tail.empty() ? " is empty" : " ends:\n" + tail);
}

}  // namespace kforge::scheduler
