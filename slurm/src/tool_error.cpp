#include "tool_error.hpp"

#include <cstring>
#include <sstream>

#include "slurm_errnos.hpp"

namespace kforge::slurm::detail {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

int slurm_errno_from_message(const std::string& message) {
  int best = 0;
  std::size_t best_length = 0;
  for (const SlurmErrorText& known : known_slurm_error_texts()) {
    if (known.text.size() > best_length && message.find(known.text) != std::string::npos) {
      best = known.number;
      best_length = known.text.size();
    }
  }
  return best;
}

std::string tool_error_text(const std::string& stderr_text) {
  std::istringstream lines(stderr_text);
  std::string line;
  std::string joined;
  while (std::getline(lines, line)) {
    const auto marker = line.find("error: ");
    if (marker == std::string::npos) continue;
    joined += (joined.empty() ? "" : "; ") + trim(line.substr(marker + std::strlen("error: ")));
  }
  return joined.empty() ? trim(stderr_text) : joined;
}

SlurmError tool_error(const std::vector<std::string>& argv, const CommandResult& result) {
  std::string message = tool_error_text(result.err);
  if (message.empty()) message = "exited with status " + std::to_string(result.exit_code) + " and no message";
  return SlurmError("'" + command_line(argv) + "'", message, slurm_errno_from_message(result.err));
}

}  // namespace kforge::slurm::detail
