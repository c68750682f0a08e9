#include "tool_error.hpp"

#include <slurm/slurm_errno.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace kforge::slurm::detail {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Slurm's own codes (protocol 1000s, slurmctld 2000s, slurmd 4000s, ...) plus EAGAIN, which slurmctld
// returns when MaxJobCount is reached.
std::vector<int> candidate_errnos() {
  std::vector<int> codes{EAGAIN};
  for (int code = 1000; code < 6000; ++code) codes.push_back(code);
  return codes;
}

}  // namespace

int slurm_errno_from_message(const std::string& message) {
  static const std::vector<int> codes = candidate_errnos();
  int best = 0;
  std::size_t best_length = 0;
  for (const int code : codes) {
    const char* text = slurm_strerror(code);
    if (text == nullptr) continue;
    const std::string_view known(text);
    // Unassigned codes read "Unknown error NNNN"; very short texts would match by accident.
    if (known.size() < 12 || known.starts_with("Unknown error")) continue;
    if (known.size() > best_length && message.find(known) != std::string::npos) {
      best = code;
      best_length = known.size();
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
