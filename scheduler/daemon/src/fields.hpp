#pragma once
// The one record format of kforged's own texts: request files (request.hpp) and the replies of the helpers that
// read a user's files as that user (as_user.hpp). A record is lines "key value" and counted blobs "key N", a newline,
// N bytes and a newline, so any byte may be in a blob and no text in one can pass for a key.
#include <string>
#include <string_view>

namespace kforge::scheduler::daemon::fields {

class FieldWriter {
 public:
  // "key N\n" + value + "\n".
  FieldWriter& blob(std::string_view key, std::string_view value);
  FieldWriter& number(std::string_view key, long long value) { return blob(key, std::to_string(value)); }
  const std::string& text() const { return out_; }

 private:
  std::string out_;
};

// Reads a record one line or one blob at a time. Every error is std::runtime_error "CONTEXT: what".
class FieldReader {
 public:
  FieldReader(const std::string& text, std::string context) : text_(text), context_(std::move(context)) {}

  std::string line();
  std::string field(const std::string& key);  // a line "key value": the value
  bool peek_field(const std::string& key) const;
  std::string blob(const std::string& key);
  long long number(const std::string& key);
  bool at_end() const { return pos_ >= text_.size(); }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const std::string& text_;
  std::string context_;
  std::size_t pos_ = 0;
};

}  // namespace kforge::scheduler::daemon::fields
