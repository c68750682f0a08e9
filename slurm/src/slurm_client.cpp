#include "kforge/slurm/slurm_client.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include "cli_slurm_client.hpp"
#include "client_common.hpp"
#include "libslurm_facts.hpp"

namespace kforge::slurm {

bool ArrayTaskState::is_finished() const {
  // Base states a job never leaves; while a flag state such as COMPLETING is shown it is not over yet.
  static constexpr std::array<std::string_view, 10> kFinal{"COMPLETED",     "FAILED",    "CANCELLED", "TIMEOUT",
                                                           "NODE_FAIL",     "PREEMPTED", "BOOT_FAIL", "DEADLINE",
                                                           "OUT_OF_MEMORY", "REVOKED"};
  return std::find(kFinal.begin(), kFinal.end(), state) != kFinal.end();
}

namespace detail {

void set_exit_status(ArrayTaskState& task, std::uint32_t wait_status) {
  task.signal = static_cast<int>(wait_status & 0x7fU);
  task.exit_code = static_cast<int>((wait_status >> 8) & 0xffU);
}

void sort_by_task_id(std::vector<ArrayTaskState>& tasks) {
  std::sort(tasks.begin(), tasks.end(),
            [](const ArrayTaskState& a, const ArrayTaskState& b) { return a.task_id < b.task_id; });
}

std::string major_minor(const std::string& version) {
  const auto start = version.find_first_of("0123456789");
  if (start == std::string::npos) return "";
  const auto first_dot = version.find('.', start);
  if (first_dot == std::string::npos) return version.substr(start);
  const auto end = version.find_first_not_of("0123456789", first_dot + 1);
  return version.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::optional<std::uint32_t> parse_uint(std::string_view text) {
  std::uint32_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

}  // namespace detail

namespace {

// libslurm speaks the RPC protocol of its own release only, so it is used when the controller runs that
// release; anything else (another release, a controller we cannot ask) goes through the tools.
std::unique_ptr<SlurmClient> choose_backend() {
  if (compiled_slurm_version().empty()) return std::make_unique<CliSlurmClient>();  // built without libslurm
  auto library = detail::make_libslurm_client();
  try {
    if (detail::major_minor(library->version()) == detail::major_minor(compiled_slurm_version())) return library;
  } catch (const SlurmError&) {
    // The controller did not answer libslurm; the tools may still reach it, and will report it if not.
  }
  return std::make_unique<CliSlurmClient>();
}

}  // namespace

std::unique_ptr<SlurmClient> make_slurm_client(const std::string& backend) {
  if (backend == "libslurm") return detail::make_libslurm_client();
  if (backend == "cli") return std::make_unique<CliSlurmClient>();
  if (backend == "auto") return choose_backend();
  throw std::invalid_argument("unknown Slurm backend '" + backend + "' (expected libslurm, cli or auto)");
}

}  // namespace kforge::slurm
