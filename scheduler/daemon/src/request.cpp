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

#include "fields.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

constexpr const char* kMagic = "kforge-request 1";

const char* kind_name(RequestKind k) { return k == RequestKind::submit ? "submit" : "cancel"; }

}  // namespace

std::string encode_request(const Request& r) {
  std::string out = std::string(kMagic) + "\nkind " + kind_name(r.kind) + "\nname " + r.name + "\n";
  if (r.kind == RequestKind::cancel && !r.owner.empty()) out += "owner " + r.owner + "\n";
  if (r.kind == RequestKind::submit) {
    out += fields::FieldWriter().blob("campaign-bytes", r.campaign_text).blob("site-bytes", r.site_text).text();
  }
  return out;
}

Request decode_request(const std::string& text, const fs::path& file) {
  fields::FieldReader in(text, file.string() + ": malformed kforge request");
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

// Two config files of at most 1 MiB each (kforge's own limit) and a few header lines; anything larger is not a
// request.
constexpr off_t kMaxRequestBytes = (2 << 20) + 4096;

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

namespace {

// Why the opened request file cannot say who wrote it ("" when it can). Its owner is the submitter only when
// nobody else could have written its text: a file of its own (one link, so not someone's file linked in) that no
// group or other user may write (a group-writable file of alice's, in a shared project folder, may hold bob's
// text: bob can write it there and move it into requests/, where it would still be alice's).
std::string identity_problem(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_nlink != 1) {
    return "has " + std::to_string(st.st_nlink) + " hard links (a request is a file of its own)";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("mode ") + mode +
           " lets others than its owner write it, so its owner need not be its author (kforge submit writes 0600)";
  }
  if (st.st_size > kMaxRequestBytes) return "larger than " + std::to_string(kMaxRequestBytes) + " bytes";
  return "";
}

}  // namespace

ReceivedRequest receive_request(const fs::path& file) {
  // requests/ is root's (mode 1733): only the file's own name is the user's, and O_NOFOLLOW refuses a symlink
  // there; O_NONBLOCK keeps a FIFO from blocking the daemon.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(file.string() + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  std::string why = ::fstat(fd, &st) != 0 ? std::string("fstat failed: ") + std::strerror(errno) : identity_problem(st);
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
