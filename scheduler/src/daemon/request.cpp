#include "kforge/scheduler/daemon/request.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

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
  bool peek_field(const std::string& key) const { return text_.compare(pos_, key.size() + 1, key + " ") == 0; }
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
  if (r.kind == RequestKind::cancel && !r.owner.empty()) out += "owner " + r.owner + "\n";
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
  if (r.kind == RequestKind::cancel && in.peek_field("owner")) {
    r.owner = in.field("owner");
    if (!is_valid_campaign_name(r.owner)) in.fail("'" + r.owner + "' is not a valid user name");
  }
  if (r.kind == RequestKind::submit) {
    r.campaign_text = in.blob("campaign-bytes");
    r.site_text = in.blob("site-bytes");
  }
  return r;
}

namespace {

constexpr off_t kMaxRequestBytes = 16 << 20;  // two YAML files; anything larger is not a request

[[noreturn]] void refuse_write(const fs::path& dir, const std::string& what, int err) {
  std::string hint;
  if (err == EACCES || err == EPERM) {
    hint = " (kforge submit and cancel need to create files in " + dir.string() +
           ": mode 1733 for a multi-user kforged run by root, or a folder of your own for a kforged you run "
           "yourself; see docs/daemon.md)";
  } else if (err == ENOENT) {
    hint = " (no spool there: is --spool or $KFORGE_SPOOL right, and has kforged been started on it?)";
  }
  throw std::runtime_error("cannot " + what + ": " + std::strerror(err) + hint);
}

}  // namespace

fs::path write_request(const Spool& spool, const Request& r) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%020lld-%08d", static_cast<long long>(ns), static_cast<int>(::getpid()));
  const fs::path dir = spool.requests_dir();
  const fs::path file = dir / (std::string(stamp) + "-" + kind_name(r.kind) + "-" + r.name + ".req");
  std::error_code ec;
  if (!fs::exists(spool.root(), ec)) {
    // No daemon prepared this spool yet: make it a private one (a kforged started by this user takes it as is).
    const mode_t old = ::umask(077);
    fs::create_directories(dir, ec);
    ::umask(old);
    if (ec) refuse_write(dir, "create the spool folder " + dir.string(), ec.value());
  }
  const fs::path tmp = file.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) refuse_write(dir, "write a request into " + dir.string(), errno);
  const std::string text = encode_request(r);
  size_t done = 0;
  int err = 0;
  while (done < text.size() && err == 0) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  if (err == 0 && ::rename(tmp.c_str(), file.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    refuse_write(dir, "write the request " + file.string(), err);
  }
  return file;
}

ReceivedRequest receive_request(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(file.string() + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0) {
    why = std::string("fstat failed: ") + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
  } else if (st.st_nlink != 1) {
    why = "has " + std::to_string(st.st_nlink) + " hard links (a request is a file of its own)";
  } else if (st.st_size > kMaxRequestBytes) {
    why = "larger than " + std::to_string(kMaxRequestBytes) + " bytes";
  }
  std::string text;
  if (why.empty()) {
    text.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    text.resize(got);
  }
  ::close(fd);
  if (!why.empty()) throw std::runtime_error(file.string() + ": not accepted as a request: " + why);
  return ReceivedRequest{decode_request(text, file), st.st_uid};
}

std::vector<fs::path> pending_requests(const Spool& spool) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(spool.requests_dir(), ec)) {
    // Writers publish by renaming NAME.req.tmp to NAME.req: only the final names are complete. Whatever else
    // carries the name (a symlink, a FIFO) is listed too, so that the daemon rejects and removes it.
    if (entry.path().extension() == ".req") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace kforge::scheduler::daemon
