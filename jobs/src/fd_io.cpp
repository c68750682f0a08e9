#include "kforge/jobs/fd_io.hpp"

#include <unistd.h>

#include <cerrno>

namespace kforge::jobs {

bool write_all(int fd, std::string_view bytes) noexcept {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace kforge::jobs
