// `kforge watch DIR`: a live view of a campaign in the terminal, redrawn every few seconds from the campaign
// directory alone (the same model as `kforge status`), so it works beside `kforge run`, kforged or an sbatch job.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <thread>

#include "kforge/scheduler/report/report.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

constexpr int kBarWidth = 30;
constexpr int kWaitForDirS = 60;  // a campaign folder that `kforge run` is about to create

// wall_s of DIR/gNNNN/timings.json (written when generation g ended); NaN when absent or unreadable.
double generation_wall_s(const CampaignDir& dir, int g) {
  std::ifstream in(dir.generation_dir(g) / "timings.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("\"wall_s\":");
  if (at == std::string::npos) return jobs::kNaN;
  return std::strtod(text.c_str() + at + 9, nullptr);
}

std::string bar(int done, int total) {
  const int filled = total > 0 ? kBarWidth * done / total : 0;
  return "[" + std::string(static_cast<std::size_t>(filled), '#') + std::string(kBarWidth - filled, '-') + "]";
}

std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "unknown";
  char buf[32];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.0f s", std::max(0.0, s));
  else
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  return buf;
}

// The ETA: the mean wall time of the finished generations, minus what the current one has run so far, plus
// one mean per generation still to come. Unknown before a generation has finished.
double eta_s(const CampaignDir& dir, const CampaignReport& r) {
  double sum = 0;
  int n = 0;
  for (int g = 0; g < r.generations_done; ++g) {
    const double w = generation_wall_s(dir, g);
    if (std::isfinite(w)) sum += w, ++n;
  }
  if (n == 0) return jobs::kNaN;
  const double mean = sum / n;
  std::error_code ec;
  const auto started = fs::last_write_time(dir.tasks_dir(r.generations_done), ec);
  const double elapsed = ec ? 0.0 : std::chrono::duration<double>(fs::file_time_type::clock::now() - started).count();
  return std::max(0.0, mean - elapsed) + mean * (r.generations_planned - r.generations_done - 1);
}

void write_frame(std::ostream& out, const CampaignDir& dir, const CampaignReport& r) {
  const bool done = r.generations_done >= r.generations_planned;
  out << "campaign " << r.campaign << "  (" << r.directory << ")  "
      << (done        ? "done"
          : r.running ? "running"
                      : "stopped")
      << "\n";
  out << "generations " << bar(r.generations_done, r.generations_planned) << " " << r.generations_done << "/"
      << r.generations_planned << " done\n";
  if (!done) {
    out << "generation " << r.generations_done << " tasks " << bar(r.current_tasks_done, r.current_tasks) << " "
        << r.current_tasks_done << "/" << r.current_tasks << "  ETA " << seconds_text(eta_s(dir, r)) << "\n";
  }
  const GenerationSummary* last = r.generations.empty() ? nullptr : &r.generations.back();
  if (last) {  // the console's wording of the newest generation (describe_generation)
    out << "generation " << last->generation << ": " << describe_generation(*last) << "  evaluations " << r.evaluations
        << "\n";
  }
  for (const auto& f : r.baseline_failures) {
    out << "baseline " << f.baseline << " FAILED in generation " << f.generation << " task " << f.task << ": "
        << f.reason << "\n";
  }
}

}  // namespace

int watch_campaign(const CampaignDir& dir, double interval_s, bool once, std::ostream& out) {
  const bool tty = ::isatty(STDOUT_FILENO) != 0;
  auto failing_since = std::chrono::steady_clock::now();  // since when DIR has not read as a campaign
  for (int waited = 0; !fs::exists(dir.campaign_config()); ++waited) {
    if (once || waited >= kWaitForDirS) break;  // build_report below throws, naming DIR
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  while (true) {
    CampaignReport r;
    try {
      r = build_report(dir);
      failing_since = std::chrono::steady_clock::now();
    } catch (const std::exception&) {
      // A campaign that `kforge run` is still setting up (or a file being replaced) reads as broken for a moment;
      // a folder that stays unreadable is reported like `kforge report` does.
      if (once || std::chrono::steady_clock::now() - failing_since > std::chrono::seconds(kWaitForDirS)) throw;
      std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
      continue;
    }
    std::ostringstream frame;
    write_frame(frame, dir, r);
    if (tty) out << "\033[H\033[2J";  // redraw in place at a terminal; a log gets one frame after another
    out << frame.str() << std::flush;
    if (once || r.generations_done >= r.generations_planned) return 0;
    if (!tty) out << "\n";
    std::this_thread::sleep_for(std::chrono::duration<double>(interval_s));
  }
}

}  // namespace kforge::scheduler
