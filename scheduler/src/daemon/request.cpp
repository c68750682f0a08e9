#include "kforge/scheduler/daemon/request.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "kforge/jobs/text_file.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

constexpr const char* kMagic = "kforge-request 1";

const char* kind_name(RequestKind k) { return k == RequestKind::submit ? "submit" : "cancel"; }

void append_blob(std::string& out, const char* label, const std::string& blob) {
  out += std::string(label) + " " + std::to_string(blob.size()) + "\n" + blob + "\n";
}

// Reads the protocol one line or one counted blob at a time; every error names the file.
class Reader {
 public:
  Reader(const std::string& text, const fs::path& file) : text_(text), file_(file) {}

  std::string line() {
    const size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) fail("ends early (a line is missing its newline)");
    std::string l = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return l;
  }
  std::string field(const std::string& key) {
    const std::string l = line();
    if (l.rfind(key + " ", 0) != 0) fail("expected '" + key + " ...', found '" + l + "'");
    return l.substr(key.size() + 1);
  }
  std::string blob(const std::string& key) {
    const std::string count = field(key);
    size_t n = 0;
    try {
      n = std::stoul(count);
    } catch (const std::exception&) {
      fail(key + ": '" + count + "' is not a byte count");
    }
    if (pos_ + n + 1 > text_.size() || text_[pos_ + n] != '\n') fail(key + ": fewer than " + count + " bytes follow");
    std::string b = text_.substr(pos_, n);
    pos_ += n + 1;
    return b;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(file_.string() + ": malformed kforge request: " + what);
  }

 private:
  const std::string& text_;
  const fs::path& file_;
  size_t pos_ = 0;
};

}  // namespace

std::string encode_request(const Request& r) {
  std::string out = std::string(kMagic) + "\nkind " + kind_name(r.kind) + "\nname " + r.name + "\n";
  if (r.kind == RequestKind::submit) {
    append_blob(out, "campaign-bytes", r.campaign_text);
    append_blob(out, "site-bytes", r.site_text);
  }
  return out;
}

Request decode_request(const std::string& text, const fs::path& file) {
  Reader in(text, file);
  if (in.line() != kMagic) in.fail("the first line is not '" + std::string(kMagic) + "'");
  Request r;
  const std::string kind = in.field("kind");
  if (kind == "submit") {
    r.kind = RequestKind::submit;
  } else if (kind == "cancel") {
    r.kind = RequestKind::cancel;
  } else {
    in.fail("unknown kind '" + kind + "' (submit or cancel)");
  }
  r.name = in.field("name");
  if (!is_valid_campaign_name(r.name)) in.fail("'" + r.name + "' is not a valid campaign name");
  if (r.kind == RequestKind::submit) {
    r.campaign_text = in.blob("campaign-bytes");
    r.site_text = in.blob("site-bytes");
  }
  return r;
}

fs::path write_request(const Spool& spool, const Request& r) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%020lld-%08d", static_cast<long long>(ns), static_cast<int>(::getpid()));
  const fs::path file = spool.requests_dir() / (std::string(stamp) + "-" + kind_name(r.kind) + "-" + r.name + ".req");
  fs::create_directories(spool.requests_dir());
  jobs::write_text_file_atomically(file, encode_request(r));
  return file;
}

std::vector<fs::path> pending_requests(const Spool& spool) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(spool.requests_dir(), ec)) {
    // Writers publish by renaming NAME.req.tmp.PID to NAME.req: only the final names are complete.
    if (entry.path().extension() == ".req" && entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace kforge::scheduler::daemon
