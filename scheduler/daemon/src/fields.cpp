#include "fields.hpp"

#include <stdexcept>

namespace kforge::scheduler::daemon::fields {

FieldWriter& FieldWriter::blob(std::string_view key, std::string_view value) {
  out_.append(key).append(" ").append(std::to_string(value.size())).append("\n").append(value).append("\n");
  return *this;
}

std::string FieldReader::line() {
  const std::size_t end = text_.find('\n', pos_);
  if (end == std::string::npos) fail("ends early (a line is missing its newline)");
  std::string l = text_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return l;
}

std::string FieldReader::field(const std::string& key) {
  const std::string l = line();
  if (l.rfind(key + " ", 0) != 0) fail("expected '" + key + " ...', found '" + l + "'");
  return l.substr(key.size() + 1);
}

bool FieldReader::peek_field(const std::string& key) const {
  return text_.compare(pos_, key.size() + 1, key + " ") == 0;
}

std::string FieldReader::blob(const std::string& key) {
  const std::string count = field(key);
  std::size_t n = 0;
  try {
    n = std::stoul(count);
  } catch (const std::exception&) {
    fail(key + ": '" + count + "' is not a byte count");
  }
  if (n > text_.size() || pos_ + n + 1 > text_.size() || text_[pos_ + n] != '\n') {
    fail(key + ": fewer than " + count + " bytes follow");
  }
  std::string b = text_.substr(pos_, n);
  pos_ += n + 1;
  return b;
}

long long FieldReader::number(const std::string& key) {
  const std::string text = blob(key);
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  fail(key + ": '" + text + "' is not a number");
}

void FieldReader::fail(const std::string& what) const { throw std::runtime_error(context_ + ": " + what); }

}  // namespace kforge::scheduler::daemon::fields
