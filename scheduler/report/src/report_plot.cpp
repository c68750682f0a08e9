// `kforge plot` and `kforge report --html`: the report's model goes to share/python/kforge_plot.py as JSON, which
// draws it with the system's matplotlib. The pictures come from Python because matplotlib is what scientists
// already read and extend; the numbers come from this report, so both show the same figures.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/scheduler/report/report.hpp"

#ifndef KFORGE_SOURCE_PYTHON_DIR
#define KFORGE_SOURCE_PYTHON_DIR ""
#endif

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

constexpr const char* kScript = "kforge_plot.py";

// $KFORGE_PYTHON_DIR, else the installed <prefix>/share/kforge/python next to <prefix>/bin, else the source tree's.
fs::path python_dir() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("KFORGE_PYTHON_DIR")) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "kforge" / "python");
  candidates.emplace_back(KFORGE_SOURCE_PYTHON_DIR);
  for (const auto& c : candidates) {
    if (!c.empty() && fs::exists(c / kScript)) return c;
  }
  throw std::runtime_error(std::string("cannot find ") + kScript +
                           ": set KFORGE_PYTHON_DIR to the folder that holds kforge_archive.py");
}

// Runs $KFORGE_PYTHON (default /usr/bin/python3, Debian's, which has matplotlib, h5py and pandas) on the script.
int run_script(const std::vector<std::string>& args) {
  const char* env = std::getenv("KFORGE_PYTHON");
  const std::string python = env && *env ? env : "/usr/bin/python3";
  std::vector<std::string> all{python, (python_dir() / kScript).string()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "kforge: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void write_json_file(const fs::path& path, const CampaignReport& r) {
  std::ofstream out(path);
  write_report_json(out, r);
  if (!out.flush()) throw std::runtime_error(path.string() + ": cannot write");
}

}  // namespace

int plot_campaign(const CampaignDir& dir, const fs::path& out, const std::string& format) {
  if (format != "png" && format != "svg") throw std::invalid_argument("--format must be png or svg, not " + format);
  const CampaignReport r = build_report(dir);
  fs::create_directories(out);
  const fs::path report = out / "report.json";  // kept: the report the pictures were drawn from
  write_json_file(report, r);
  return run_script({dir.root().string(), "--report", report.string(), "--out", out.string(), "--format", format});
}

int write_report_html(const CampaignDir& dir, const fs::path& file) {
  const CampaignReport r = build_report(dir);
  const fs::path tmp = fs::temp_directory_path() / ("kforge-report-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  write_json_file(tmp / "report.json", r);
  {
    std::ofstream text(tmp / "report.txt");
    write_report_table(text, r);
  }
  int rc = 1;
  try {
    rc = run_script({dir.root().string(), "--report", (tmp / "report.json").string(), "--text",
                     (tmp / "report.txt").string(), "--html", file.string()});
  } catch (...) {
    fs::remove_all(tmp);
    throw;
  }
  fs::remove_all(tmp);
  return rc;
}

}  // namespace kforge::scheduler
