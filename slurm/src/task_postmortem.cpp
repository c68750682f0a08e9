#include "kforge/slurm/task_postmortem.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "command.hpp"

namespace kforge::slurm {
namespace {

// Value of KEY in a line of "Key=Value Key=Value ..." (scontrol -o); empty when absent.
std::string field(const std::string& line, const std::string& key) {
  std::istringstream in(line);
  for (std::string word; in >> word;) {
    if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
  }
  return "";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// scontrol first; sacct (where accounting exists) for a job the controller no longer holds.
std::string controller_view(const std::string& job_text, std::string& task_job_id) {
  try {
    const auto r = detail::run_command({"scontrol", "--oneliner", "show", "job", job_text});
    if (r.exit_code == 0 && !r.out.empty()) {
      const std::string line = first_line(r.out);
      task_job_id = field(line, "JobId");
      std::string out;
      for (const char* key : {"JobId", "ArrayJobId", "ArrayTaskId", "JobState", "Reason", "ExitCode", "NodeList",
                              "RunTime", "TimeLimit", "StdOut"}) {
        if (const std::string v = field(line, key); !v.empty())
          out += (out.empty() ? "" : " ") + std::string(key) + "=" + v;
      }
      return out;
    }
    const auto a = detail::run_command({"sacct", "--noheader", "--parsable2", "--jobs=" + job_text,
                                        "--format=JobIDRaw,State,ExitCode,NodeList,Elapsed"});
    if (a.exit_code == 0 && !a.out.empty()) {
      const std::string line = first_line(a.out);
      task_job_id = line.substr(0, line.find('|'));
      return "sacct: " + line + " (JobIDRaw|State|ExitCode|NodeList|Elapsed)";
    }
    return "the controller no longer knows " + job_text + " (" + first_line(r.err) +
           ") and accounting has no record (" + first_line(a.err.empty() ? a.out : a.err) + ")";
  } catch (const std::exception& e) {
    return std::string("scontrol could not be run: ") + e.what();
  }
}

std::string slurmd_log_path(const std::string& node) {
  const auto r = detail::run_command({"scontrol", "show", "config"});
  if (r.exit_code != 0) return "";
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("SlurmdLogFile", 0) != 0) continue;
    std::string path = line.substr(line.find('=') + 1);
    path.erase(0, path.find_first_not_of(' '));
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    for (const auto& [pattern, value] : {std::pair<std::string, std::string>{"%n", node}, {"%h", host}}) {
      for (auto at = path.find(pattern); at != std::string::npos; at = path.find(pattern)) path.replace(at, 2, value);
    }
    return path;
  }
  return "";
}

// The last lines of the slurmd log that name the job (launch failures: "Could not open stdout file ...").
std::string slurmd_excerpt(const std::string& task_job_id, const std::string& node) {
  if (task_job_id.empty()) return "slurmd log not searched: the task's job id is unknown";
  const std::string path = slurmd_log_path(node);
  if (path.empty() || path == "(null)") return "slurmd log not searched: SlurmdLogFile is not set (syslog)";
  std::ifstream in(path);
  if (!in) return "slurmd log " + path + " is not readable here (it lives on node " + node + ")";
  const std::vector<std::string> needles{"JobId=" + task_job_id + " ", "job " + task_job_id + " ",
                                         "job" + task_job_id + " ", "StepId=" + task_job_id + ".",
                                         task_job_id + ".batch"};
  std::vector<std::string> hits;
  for (std::string line; std::getline(in, line);) {
    for (const auto& n : needles) {
      if ((line + " ").find(n) != std::string::npos) {
        hits.push_back(line);
        break;
      }
    }
  }
  std::vector<std::string> errors;
  for (const auto& h : hits) {
    if (h.find("error") != std::string::npos || h.find("rror:") != std::string::npos) errors.push_back(h);
  }
  const auto& chosen = errors.empty() ? hits : errors;
  if (chosen.empty()) return "slurmd log " + path + " has no line about job " + task_job_id;
  std::string out = "slurmd (" + path + "):";
  for (size_t i = chosen.size() > 4 ? chosen.size() - 4 : 0; i < chosen.size(); ++i) out += "\n  " + chosen[i];
  return out;
}

}  // namespace

TaskPostmortem task_postmortem(JobId array_job, std::uint32_t task, const std::string& node) {
  TaskPostmortem p;
  std::string task_job_id;
  p.controller = controller_view(std::to_string(array_job) + "_" + std::to_string(task), task_job_id);
  try {
    p.slurmd = slurmd_excerpt(task_job_id, node);
  } catch (const std::exception& e) {
    p.slurmd = std::string("slurmd log not searched: ") + e.what();
  }
  return p;
}

bool NodeState::usable() const {
  if (!state.empty() && state.back() == '*') return false;  // not responding
  for (const char* bad : {"down", "drain", "fail", "inval", "maint", "reboot", "power", "future", "unk"}) {
    if (state.rfind(bad, 0) == 0) return false;
  }
  return true;
}

std::vector<NodeState> query_node_states(const std::string& node_list, std::string* why) {
  std::vector<NodeState> out;
  try {
    // One line per node and partition it is in: the first of each node is kept.
    const auto r = detail::run_command({"sinfo", "--noheader", "--Node", "--nodes=" + node_list, "--format=%N|%T|%E"});
    if (r.exit_code != 0) {
      if (why) *why = "sinfo: " + first_line(r.err);
      return out;
    }
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      const size_t bar = line.find('|'), bar2 = line.find('|', bar + 1);
      if (bar == std::string::npos || bar2 == std::string::npos) continue;
      NodeState n{line.substr(0, bar), line.substr(bar + 1, bar2 - bar - 1), line.substr(bar2 + 1)};
      if (n.reason == "none") n.reason.clear();
      bool seen = false;
      for (const auto& o : out) seen = seen || o.name == n.name;
      if (!seen) out.push_back(std::move(n));
    }
    if (out.empty() && why) *why = "sinfo listed no node of " + node_list;
  } catch (const std::exception& e) {
    if (why) *why = std::string("sinfo could not be run: ") + e.what();
  }
  return out;
}

std::string node_states(const std::string& node_list) {
  std::string why, out;
  for (const auto& n : query_node_states(node_list, &why)) {
    out += (out.empty() ? "" : "; ") + n.name + " " + n.state + (n.reason.empty() ? "" : " (" + n.reason + ")");
  }
  return out.empty() ? "node states unknown (" + why + ")" : out;
}

}  // namespace kforge::slurm
