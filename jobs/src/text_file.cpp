#include "kforge/jobs/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "detail/durable_file.hpp"

namespace kforge::jobs {

void write_text_file_atomically(const std::filesystem::path& path, std::string_view text) {
  detail::write_text_atomically(path, text);
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot read: " + std::strerror(errno));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace kforge::jobs
