#include "ptxas_log.hpp"

#include <regex>
#include <sstream>

namespace kforge::kernels::cuda {
namespace {

std::int64_t number_before(const std::string& line, const std::regex& pattern) {
  std::smatch m;
  return std::regex_search(line, m, pattern) ? std::stoll(m[1].str()) : 0;
}

// Fills `f` from a line of ptxas output that belongs to its entry function.
void apply_line(const std::string& line, KernelFigures& f) {
  static const std::regex registers(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex stack(R"((\d+) bytes stack frame)");
  static const std::regex stores(R"((\d+) bytes spill stores)");
  static const std::regex loads(R"((\d+) bytes spill loads)");
  std::smatch m;
  if (std::regex_search(line, m, registers)) {
    f.registers = static_cast<std::int32_t>(std::stol(m[1].str()));
    f.static_shared_bytes = number_before(line, smem);
  } else if (line.find("bytes stack frame") != std::string::npos) {
    f.stack_frame_bytes = number_before(line, stack);
    f.spill_store_bytes = number_before(line, stores);
    f.spill_load_bytes = number_before(line, loads);
  }
}

}  // namespace

std::vector<KernelFigures> parse_ptxas_figures(std::string_view log) {
  static const std::regex entry_line(R"(Compiling entry function '([^']+)')");
  static const std::regex properties_line(R"(Function properties for (\S+))");
  std::vector<KernelFigures> out;
  std::istringstream in{std::string(log)};
  std::string line;
  bool in_entry_properties = false;  // "Function properties" of a device function (not an entry) are skipped
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry_line)) {
      out.push_back(KernelFigures{.entry = m[1].str()});
      in_entry_properties = false;
    } else if (std::regex_search(line, m, properties_line)) {
      in_entry_properties = !out.empty() && m[1].str() == out.back().entry;
    } else if (!out.empty() && line.find("Used ") != std::string::npos) {
      apply_line(line, out.back());
    } else if (!out.empty() && in_entry_properties) {
      apply_line(line, out.back());
    }
  }
  return out;
}

std::optional<KernelFigures> figures_for_entry(std::string_view log, std::string_view entry) {
  for (KernelFigures& f : parse_ptxas_figures(log))
    if (f.entry == entry && f.registers >= 0) return f;
  return std::nullopt;
}

}  // namespace kforge::kernels::cuda
