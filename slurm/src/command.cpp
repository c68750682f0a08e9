#include "command.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "kforge/slurm/slurm_error.hpp"

extern char** environ;

namespace kforge::slurm::detail {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File temporary_file() {
  File file(std::tmpfile(), &std::fclose);
  if (!file) throw SlurmError("tmpfile() for a Slurm tool's output", std::strerror(errno), 0);
  return file;
}

std::string read_all(std::FILE* file) {
  std::string text;
  std::rewind(file);
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, file)) text.append(buffer, n);
  return text;
}

// The caller's environment with extra_env set on top (replacing same-named variables).
std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    if (!extra_env.contains(text.substr(0, text.find('=')))) env.push_back(text);
  }
  for (const auto& [name, value] : extra_env) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) line += (line.empty() ? "" : " ") + arg;
  return line;
}

CommandResult run_command(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env) {
  // Output goes to unlinked temporary files, not pipes: no deadlock however much a tool prints.
  File out = temporary_file();
  File err = temporary_file();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fileno(out.get()), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(err.get()), STDERR_FILENO);
  std::vector<std::string> args = argv;
  std::vector<std::string> env = merged_environment(extra_env);
  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, args.front().c_str(), &actions, nullptr, pointers(args).data(), pointers(env).data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw SlurmError("starting '" + command_line(argv) + "'", std::strerror(rc), 0);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw SlurmError("waiting for '" + command_line(argv) + "'", std::strerror(errno), 0);
  }
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = read_all(out.get());
  result.err = read_all(err.get());
  return result;
}

}  // namespace kforge::slurm::detail
