// Reading config files and recognising YAML scalars: files, syntax errors, integers, numbers, names.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "yaml_reader.hpp"

namespace kforge::scheduler::config_detail {
namespace {

// Closes a file descriptor on every path out of read_config_file.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void fail_read(const std::filesystem::path& file, int error) {
  throw ConfigError({file.string(), 1, 1}, "<file>", std::string("cannot read: ") + std::strerror(error),
                    "a readable YAML file");
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?  (the YAML 1.2 core schema float, plus integers)
bool looks_like_yaml_float(std::string_view t) {
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  std::size_t digits = 0;
  while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && is_digit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    std::size_t exponent_digits = 0;
    while (i < t.size() && is_digit(t[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == t.size();
}

}  // namespace

std::string read_config_file(const std::filesystem::path& file) {
  // O_NONBLOCK: opening a FIFO with no writer must not hang; the type check below then refuses it.
  FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) fail_read(file, errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail_read(file, errno);
  if (!S_ISREG(info.st_mode)) {
    const char* kind = S_ISDIR(info.st_mode)    ? "a directory"
                       : S_ISFIFO(info.st_mode) ? "a FIFO"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                                                : "not a regular file";
    throw ConfigError({file.string(), 1, 1}, "<file>", std::string("cannot read: it is ") + kind,
                      "a readable YAML file");
  }
  auto too_large = [&](const std::string& size) {
    throw ConfigError(
        {file.string(), 1, 1}, "<file>",
        "cannot read: " + size + " is larger than the limit of " + std::to_string(kMaxConfigFileBytes) + " bytes",
        "a readable YAML file of at most 1 MiB");
  };
  if (info.st_size > static_cast<off_t>(kMaxConfigFileBytes)) too_large(std::to_string(info.st_size) + " bytes");
  std::string text;
  char buffer[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_read(file, errno);
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigFileBytes) too_large("the file (still growing)");  // grew since fstat
  }
  return text;
}

YAML::Node load_yaml(const std::string& text, const std::string& file) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(location_of(e.mark, file), "<yaml>", e.msg, "valid YAML");
  }
}

SourceLocation location_of(const YAML::Mark& mark, const std::string& file) {
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return {file, 1, 1};
  return {file, mark.line + 1, mark.column + 1};
}

std::string describe_value(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    default:
      return "nothing";
  }
}

bool is_identifier(std::string_view text) {
  if (text.empty() || !(is_alpha(text[0]) || text[0] == '_')) return false;
  for (char c : text)
    if (!(is_alpha(c) || is_digit(c) || c == '_')) return false;
  return true;
}

bool is_safe_file_name(std::string_view text) {
  if (text.empty() || text == "." || text == "..") return false;
  for (char c : text)
    if (!(is_alpha(c) || is_digit(c) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

bool parse_int64(std::string_view text, std::int64_t& out) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty() || text[0] == '+') return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

bool parse_yaml_number(std::string_view text, double& out) {
  if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf" || text == "+.Inf" || text == "+.INF") {
    out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-.inf" || text == "-.Inf" || text == "-.INF") {
    out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == ".nan" || text == ".NaN" || text == ".NAN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (!looks_like_yaml_float(text)) return false;
  std::string_view digits = (text[0] == '+') ? text.substr(1) : text;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  // A valid YAML number that does not fit (1e999, 1e-999): strtod rounds it to +-inf or 0 as the value means.
  if (error == std::errc::result_out_of_range) {
    out = std::strtod(std::string(digits).c_str(), nullptr);
    return true;
  }
  return error == std::errc() && end == digits.data() + digits.size();
}

std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

std::string join(const std::vector<std::string>& names, std::string_view separator) {
  std::string text;
  for (const auto& name : names) {
    if (!text.empty()) text += separator;
    text += name;
  }
  return text;
}

}  // namespace kforge::scheduler::config_detail
