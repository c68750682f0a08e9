#pragma once
// kforged started the two ways an administrator starts it: from a root shell (`kforged --spool S --admin-group G`
// with the shell's environment), and as the shipped systemd unit (share/systemd/kforged.service) starts it, for a
// machine where systemd itself cannot run the test: the unit's ExecStart line (its paths pointed at the build and the
// test's spool and group), the unit's UMask, its CapabilityBoundingSet (every other capability dropped from the
// bounding set before exec), NoNewPrivileges, StateDirectoryMode for the spool folder, the environment systemd
// gives a User=root service, and for PrivateTmp= (a /tmp of the service's own, shared by the daemon and everything
// it starts) a fresh sticky folder as TMPDIR. A directive of the unit that this cannot stand in for fails the test.
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <sstream>

#include "process_helpers.hpp"

namespace kforge::test {

using std::chrono::seconds;

enum class StartedBy { root_shell, systemd_unit };

struct DaemonStart {
  std::vector<std::string> argv;
  std::optional<Env> env;  // std::nullopt: the caller's environment (a root shell's)
  mode_t umask = 022;
  std::optional<std::vector<int>> caps;  // capabilities kept in the bounding set (all when unset)
  bool no_new_privileges = false;
  mode_t state_directory_mode = 0;  // mode systemd gives the spool folder before the start (0: none made)
  // A file the starting shell holds open on descriptor kInheritedFd without close-on-exec (a redirection of its
  // own, a descriptor its parent handed down): kforged inherits it as a root shell's child does.
  std::optional<fs::path> inherited_file;
};

inline constexpr int kInheritedFd = 9;

// `kforged --spool /var/lib/kforge --admin-group kforge-admins` typed in a root shell: its environment and umask.
inline DaemonStart root_shell_start() {
  const mode_t shell_umask = ::umask(022);
  ::umask(shell_umask);
  DaemonStart s;
  s.argv = {"/usr/local/bin/kforged", "--spool", "/var/lib/kforge", "--admin-group", "kforge-admins"};
  s.umask = shell_umask;
  return s;
}

inline int capability_number(const std::string& name) {
  static const std::map<std::string, int> known = {{"CAP_CHOWN", CAP_CHOWN},
                                                   {"CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE},
                                                   {"CAP_DAC_READ_SEARCH", CAP_DAC_READ_SEARCH},
                                                   {"CAP_FOWNER", CAP_FOWNER},
                                                   {"CAP_FSETID", CAP_FSETID},
                                                   {"CAP_KILL", CAP_KILL},
                                                   {"CAP_SETGID", CAP_SETGID},
                                                   {"CAP_SETUID", CAP_SETUID},
                                                   {"CAP_SETPCAP", CAP_SETPCAP},
                                                   {"CAP_SYS_ADMIN", CAP_SYS_ADMIN}};
  const auto it = known.find(name);
  if (it == known.end()) throw std::runtime_error("the test does not know capability " + name);
  return it->second;
}

// The unit's [Service] settings as the test stands in for them; `scratch` holds the private TMPDIR.
inline DaemonStart unit_start(const fs::path& scratch) {
  std::istringstream unit(slurp(fs::path(KFORGE_SOURCE_DIR) / "share/systemd/kforged.service"));
  DaemonStart s;
  // What systemd puts in a User=root service's environment (no Environment= lines in the unit).
  s.env = Env{{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
              {"HOME", "/root"},
              {"USER", "root"},
              {"LOGNAME", "root"},
              {"SHELL", "/bin/sh"}};
  for (std::string line; std::getline(unit, line);) {
    const std::size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || line[0] == '[' || eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    const std::string value = line.substr(eq + 1);
    std::istringstream words(value);
    if (key == "ExecStart") {
      for (std::string w; words >> w;) s.argv.push_back(w);
    } else if (key == "UMask") {
      s.umask = static_cast<mode_t>(std::stoul(value, nullptr, 8));
    } else if (key == "CapabilityBoundingSet") {
      s.caps.emplace();
      for (std::string w; words >> w;) s.caps->push_back(capability_number(w));
    } else if (key == "NoNewPrivileges") {
      s.no_new_privileges = value == "yes";
    } else if (key == "StateDirectoryMode") {
      s.state_directory_mode = static_cast<mode_t>(std::stoul(value, nullptr, 8));
    } else if (key == "PrivateTmp" && value == "yes") {
      const fs::path tmp = scratch / "private-tmp";
      fs::create_directories(tmp);
      ::chmod(tmp.c_str(), 01777);
      (*s.env)["TMPDIR"] = tmp.string();
    } else if (key == "Environment" || key == "EnvironmentFile" || key == "RootDirectory" || key == "User" ||
               key == "Group" || key == "DynamicUser") {
      if (key != "User" || value != "root") throw std::runtime_error("the test cannot stand in for " + line);
    }
  }
  if (s.argv.empty()) throw std::runtime_error("share/systemd/kforged.service has no ExecStart line");
  return s;
}

// The unit's paths and group pointed at this test's binary, spool and admin group; each must be there.
inline std::vector<std::string> replace_unit_paths(std::vector<std::string> argv, const std::string& kforged,
                                                   const fs::path& spool, const std::string& group) {
  const std::map<std::string, std::string> to = {
      {"/usr/local/bin/kforged", kforged}, {"/var/lib/kforge", spool.string()}, {"kforge-admins", group}};
  for (const auto& [from, replacement] : to) {
    const auto it = std::find(argv.begin(), argv.end(), from);
    if (it == argv.end()) throw std::runtime_error("ExecStart no longer holds " + from + ": update the test");
    *it = replacement;
  }
  return argv;
}

// StateDirectory=: systemd makes the spool folder (root's, StateDirectoryMode) before the start.
inline void prepare_state_directory(const fs::path& spool, const DaemonStart& s) {
  if (s.state_directory_mode == 0) return;
  fs::create_directories(spool);
  ::chmod(spool.c_str(), s.state_directory_mode);
}

// Starts kforged as root with stdout and stderr appended to `log` (mode 0600, root's: the journal is not the
// users' either). Returns its pid.
inline pid_t launch_daemon(const DaemonStart& s, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0) ::_exit(126);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull < 0 || ::dup2(devnull, STDIN_FILENO) < 0) ::_exit(126);
  if (s.inherited_file) {
    const int held = ::open(s.inherited_file->c_str(), O_RDWR | O_APPEND);
    if (held < 0 || ::dup2(held, kInheritedFd) < 0) ::_exit(126);
  }
  ::umask(s.umask);
  // root's groups, as login, sudo and systemd give them (initgroups): the groups a root daemon must not lend out.
  if (::initgroups("root", 0) != 0) ::_exit(126);
  if (s.caps) {
    const int last = std::stoi(slurp("/proc/sys/kernel/cap_last_cap"));
    for (int cap = 0; cap <= last; ++cap) {
      if (std::find(s.caps->begin(), s.caps->end(), cap) == s.caps->end() &&
          ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
        ::_exit(126);
      }
    }
  }
  if (s.no_new_privileges && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(126);
  if (s.env) {
    ::clearenv();
    for (const auto& [k, v] : *s.env) ::setenv(k.c_str(), v.c_str(), 1);
  }
  std::vector<char*> args;
  for (const auto& a : s.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

}  // namespace kforge::test
