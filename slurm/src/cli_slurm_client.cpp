#include "cli_slurm_client.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "client_common.hpp"
#include "command.hpp"
#include "slurm_errnos.hpp"
#include "tool_error.hpp"

namespace kforge::slurm {
namespace {

using detail::CommandResult;
using detail::run_command;

// The batch script in a private temporary file for sbatch to read; removed when sbatch is done with it.
class ScriptFile {
 public:
  explicit ScriptFile(const std::string& text) {
    std::string pattern = (std::filesystem::temp_directory_path() / "kforge-sbatch-XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw SlurmError("mkstemp(" + pattern + ") for an sbatch script", std::strerror(errno), 0);
    close(fd);
    path_ = pattern;
    std::ofstream out(path_, std::ios::binary);
    out << text;
    if (!out.flush()) throw SlurmError("writing sbatch script " + path_, std::strerror(errno), 0);
  }
  ~ScriptFile() { std::filesystem::remove(path_); }
  ScriptFile(const ScriptFile&) = delete;
  ScriptFile& operator=(const ScriptFile&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void add(std::vector<std::string>& argv, const char* option, const std::string& value) {
  if (!value.empty()) argv.push_back(std::string(option) + "=" + value);
}

void add(std::vector<std::string>& argv, const char* option, const std::optional<std::uint32_t>& value) {
  if (value) argv.push_back(std::string(option) + "=" + std::to_string(*value));
}

std::vector<std::string> sbatch_arguments(const ArraySubmission& s, const std::string& script_path) {
  std::vector<std::string> argv{"sbatch", "--parsable", "--export=ALL"};
  add(argv, "--job-name", s.name);
  add(argv, "--array", s.array);
  add(argv, "--partition", s.partition);
  add(argv, "--account", s.account);
  add(argv, "--qos", s.qos);
  add(argv, "--reservation", s.reservation);
  add(argv, "--gres", s.gres);
  add(argv, "--nodes", s.nodes);
  add(argv, "--ntasks-per-node", s.ntasks_per_node);
  add(argv, "--ntasks", s.ntasks);
  add(argv, "--cpus-per-task", s.cpus_per_task);
  add(argv, "--time", s.time_limit_minutes);
  add(argv, "--output", s.output.empty() ? std::string(detail::kDefaultArrayOutput) : s.output);
  add(argv, "--error", s.error);
  add(argv, "--chdir", s.work_dir);
  add(argv, "--comment", s.comment);
  add(argv, "--wckey", s.wckey);
  add(argv, "--exclude", s.exclude);
  add(argv, "--mem", s.mem);
  if (s.exclusive) argv.emplace_back("--exclusive");
  if (s.requeue) argv.emplace_back(*s.requeue ? "--requeue" : "--no-requeue");
  argv.insert(argv.end(), s.extra_options.begin(), s.extra_options.end());
  argv.push_back(script_path);
  return argv;
}

// "123" or "123;cluster" (--parsable) -> 123.
JobId parse_job_id(const std::vector<std::string>& argv, const std::string& out) {
  const auto id = detail::parse_uint(out.substr(0, out.find_first_of(";\n")));
  if (!id) throw SlurmError("'" + detail::command_line(argv) + "'", "unexpected --parsable output '" + out + "'", 0);
  return *id;
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, separator);) fields.push_back(field);
  return fields;
}

// squeue's `-o` has no exit code; `-O` does, and a "|" suffix per field keeps the output parsable.
constexpr const char* kSqueueFormat = "ArrayTaskID:|,State:|,Reason:|,NodeList:|,exit_code:|";

ArrayTaskState parse_squeue_line(const std::string& line) {
  const std::vector<std::string> f = split(line, '|');
  if (f.size() < 5) throw SlurmError("parsing squeue output", "unexpected line '" + line + "'", 0);
  const auto task_id = f[0] == "N/A" ? std::optional<std::uint32_t>(0) : detail::parse_uint(f[0]);
  const auto wait_status = detail::parse_uint(f[4]);
  if (!task_id || !wait_status) throw SlurmError("parsing squeue output", "unexpected line '" + line + "'", 0);
  ArrayTaskState task;
  task.task_id = *task_id;
  task.state = f[1];
  task.reason = f[2];
  task.node = f[3];
  detail::set_exit_status(task, *wait_status);
  return task;
}

}  // namespace

JobId CliSlurmClient::submit_array(const ArraySubmission& submission) {
  const ScriptFile script(submission.script);
  const std::vector<std::string> argv = sbatch_arguments(submission, script.path());
  const CommandResult result = run_command(argv, submission.environment);
  if (result.exit_code != 0) throw detail::tool_error(argv, result);
  return parse_job_id(argv, result.out);
}

std::vector<ArrayTaskState> CliSlurmClient::array_task_states(JobId job) {
  const std::vector<std::string> argv{"squeue",
                                      "--noheader",
                                      "--array",
                                      "--states=all",
                                      "--jobs=" + std::to_string(job),
                                      "--Format=" + std::string(kSqueueFormat)};
  const CommandResult result = run_command(argv);
  if (result.exit_code != 0) {
    if (detail::slurm_errno_from_message(result.err) == detail::kInvalidJobId) return {};  // gone
    throw detail::tool_error(argv, result);
  }
  std::vector<ArrayTaskState> tasks;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) tasks.push_back(parse_squeue_line(line));
  }
  detail::sort_by_task_id(tasks);
  return tasks;
}

void CliSlurmClient::scancel(const std::string& job_id_text) {
  const std::vector<std::string> argv{"scancel", job_id_text};
  const CommandResult result = run_command(argv);
  if (result.exit_code == 0) return;
  const int slurm_errno = detail::slurm_errno_from_message(result.err);
  if (slurm_errno == detail::kAlreadyDone || slurm_errno == detail::kInvalidJobId) return;  // nothing to cancel
  throw detail::tool_error(argv, result);
}

void CliSlurmClient::cancel(JobId job) { scancel(std::to_string(job)); }

void CliSlurmClient::cancel(JobId job, std::uint32_t task) {
  scancel(std::to_string(job) + "_" + std::to_string(task));
}

std::map<std::string, std::string> CliSlurmClient::show_config() {
  const std::vector<std::string> argv{"scontrol", "show", "config"};
  const CommandResult result = run_command(argv);
  if (result.exit_code != 0) throw detail::tool_error(argv, result);
  std::map<std::string, std::string> config;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    // "MaxArraySize            = 1001"
    const auto equals = line.find(" = ");
    if (equals != std::string::npos) config[line.substr(0, line.find(' '))] = line.substr(equals + 3);
  }
  return config;
}

namespace {

const std::string& config_value(const std::map<std::string, std::string>& config, const std::string& key) {
  const auto found = config.find(key);
  if (found == config.end()) throw SlurmError("'scontrol show config'", "no '" + key + "' line in its output", 0);
  return found->second;
}

std::uint32_t config_number(const std::map<std::string, std::string>& config, const std::string& key) {
  const std::string& text = config_value(config, key);
  const auto value = detail::parse_uint(text);
  if (!value) throw SlurmError("'scontrol show config'", key + " = '" + text + "' is not a number", 0);
  return *value;
}

}  // namespace

SlurmLimits CliSlurmClient::limits() {
  const auto config = show_config();
  return SlurmLimits{config_number(config, "MaxArraySize"), config_number(config, "MaxJobCount")};
}

std::uint32_t CliSlurmClient::partition_node_count(const std::string& partition) {
  const std::vector<std::string> argv{"scontrol", "show", "partition", partition, "--oneliner"};
  const CommandResult result = run_command(argv);
  if (result.exit_code != 0) throw detail::tool_error(argv, result);
  // "PartitionName=hopper ... TotalCPUs=2 TotalNodes=1 ..."
  const auto at = result.out.find("TotalNodes=");
  const auto value = at == std::string::npos
                         ? std::nullopt
                         : detail::parse_uint(result.out.substr(at + 11, result.out.find(' ', at) - at - 11));
  if (!value) throw SlurmError("'" + detail::command_line(argv) + "'", "no TotalNodes in its output", 0);
  return *value;
}

std::vector<std::string> CliSlurmClient::partition_node_gres(const std::string& partition) {
  partition_node_count(partition);  // an unknown partition is an error here, not an empty list from sinfo
  // -O with an empty width and a "|" suffix prints the whole field (no truncation), one line per node.
  const std::vector<std::string> argv{"sinfo", "--noheader", "--Node", "--partition=" + partition, "--Format=Gres:|"};
  const CommandResult result = run_command(argv);
  if (result.exit_code != 0) throw detail::tool_error(argv, result);
  std::vector<std::string> gres;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    const std::string field = line.substr(0, line.find('|'));
    if (!field.empty()) gres.push_back(field);
  }
  return gres;
}

std::string CliSlurmClient::version() { return config_value(show_config(), "SLURM_VERSION"); }

}  // namespace kforge::slurm
