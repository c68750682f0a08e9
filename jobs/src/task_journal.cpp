#include "kforge/jobs/task_journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <system_error>

namespace kforge::jobs::journal {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSuffix = ".journal";

void append(const fs::path& shard, int rank, const std::string& line) {
  const int fd = ::open(path_for(shard, rank).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = line + "\n";
  [[maybe_unused]] const ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
}

bool is_journal_of(const fs::path& file, const fs::path& shard) {
  const std::string name = file.filename().string(), prefix = shard.filename().string() + ".rank";
  return name.starts_with(prefix) && name.ends_with(kSuffix);
}

// Adds the candidates each finished segment of one journal left in flight. The last segment is the current run
// when this rank is running now; it is counted too, which is right for a dead task and harmless before a run
// has started anything.
void count_file(const fs::path& file, std::map<std::string, int>& out) {
  std::ifstream in(file);
  std::set<std::string> open;
  const auto close_segment = [&] {
    for (const auto& id : open) ++out[id];
    open.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("run")) {
      close_segment();
    } else if (line.starts_with("start ")) {
      open.insert(line.substr(6));
    } else if (line.starts_with("done ")) {
      open.erase(line.substr(5));
    }
  }
  close_segment();
}

}  // namespace

fs::path path_for(const fs::path& shard, int rank) {
  return shard.parent_path() / (shard.filename().string() + ".rank" + std::to_string(rank) + kSuffix);
}

void begin_run(const fs::path& shard, int rank) { append(shard, rank, "run pid " + std::to_string(::getpid())); }
void started(const fs::path& shard, int rank, const std::string& id) { append(shard, rank, "start " + id); }
void finished(const fs::path& shard, int rank, const std::string& id) { append(shard, rank, "done " + id); }

std::map<std::string, int> deaths(const fs::path& shard) {
  std::map<std::string, int> out;
  std::error_code ec;
  for (fs::directory_iterator it(shard.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    if (is_journal_of(it->path(), shard)) count_file(it->path(), out);
  }
  return out;
}

int most_deaths(const fs::path& shard) {
  int most = 0;
  for (const auto& [id, n] : deaths(shard)) most = std::max(most, n);
  return most;
}

void remove_all(const fs::path& shard) {
  std::error_code ec;
  for (fs::directory_iterator it(shard.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    if (is_journal_of(it->path(), shard)) fs::remove(it->path(), ec);
  }
}

}  // namespace kforge::jobs::journal
