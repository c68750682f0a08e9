#include "libslurm_client.hpp"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include "cli_slurm_client.hpp"
#include "client_common.hpp"
#include "kforge/slurm/array_range.hpp"
#include "libslurm_call.hpp"

extern char** environ;

// libslurm exports the functions squeue uses to name states and reasons, but slurm.h of 22.05 does not
// declare them (later releases do, with these signatures). Using them keeps our names identical to what
// the command-line backend reads from squeue.
extern "C" char* slurm_job_state_string(uint32_t state);
extern "C" char* slurm_job_reason_string(enum job_state_reason reason);

namespace kforge::slurm {
namespace {

// A job_desc_msg_t filled from an ArraySubmission; owns every string the descriptor points into.
class JobDescription {
 public:
  explicit JobDescription(const ArraySubmission& s) {
    slurm_init_job_desc_msg(&desc_);
    desc_.name = text(s.name);
    desc_.script = text(s.script);
    desc_.array_inx = text(s.array);
    desc_.partition = text(s.partition);
    desc_.account = text(s.account);
    desc_.qos = text(s.qos);
    desc_.reservation = text(s.reservation);
    desc_.tres_per_node = text(gres_as_tres(s.gres));
    desc_.comment = text(s.comment);
    desc_.wckey = text(s.wckey);
    desc_.exc_nodes = text(s.exclude);
    const std::string work_dir = s.work_dir.empty() ? std::filesystem::current_path().string() : s.work_dir;
    desc_.work_dir = text(work_dir);
    desc_.std_out = text(s.output.empty() ? detail::kDefaultArrayOutput : s.output);
    desc_.std_err = text(s.error);
    if (s.nodes) desc_.min_nodes = desc_.max_nodes = *s.nodes;
    if (const auto mb = memory_mb(s.mem)) desc_.pn_min_memory = *mb;
    if (s.exclusive) desc_.shared = JOB_SHARED_NONE;
    if (s.ntasks_per_node) desc_.ntasks_per_node = static_cast<uint16_t>(*s.ntasks_per_node);
    if (s.ntasks) desc_.num_tasks = *s.ntasks;
    if (s.cpus_per_task) desc_.cpus_per_task = static_cast<uint16_t>(*s.cpus_per_task);
    if (s.time_limit_minutes) desc_.time_limit = *s.time_limit_minutes;
    if (s.requeue) desc_.requeue = *s.requeue ? 1 : 0;
    desc_.user_id = getuid();
    desc_.group_id = getgid();
    set_environment(s, work_dir);
  }

  job_desc_msg_t* get() { return &desc_; }

 private:
  // nullptr for "", so that Slurm applies its default.
  char* text(const std::string& value) {
    if (value.empty()) return nullptr;
    return strings_.emplace_back(value).data();
  }

  // --mem's text in megabytes, as sbatch converts it ("256G" -> 262144); nullopt for "" (Slurm's default).
  static std::optional<std::uint64_t> memory_mb(const std::string& mem) {
    if (mem.empty()) return std::nullopt;
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(mem.data(), mem.data() + mem.size(), value);
    if (error != std::errc{}) throw SlurmError("--mem=" + mem, "not a memory size", 0);
    switch (end == mem.data() + mem.size() ? 'M' : *end) {
      case 'K':
        return (value + 1023) / 1024;
      case 'M':
        return value;
      case 'G':
        return value * 1024;
      case 'T':
        return value * 1024 * 1024;
      default:
        throw SlurmError("--mem=" + mem, "not a memory size", 0);
    }
  }

  // --gres=gpu:h100:4 reaches slurmctld as tres_per_node "gres:gpu:h100:4" since 22.05 (sbatch's xfmt_tres).
  static std::string gres_as_tres(const std::string& gres) {
    if (gres.empty() || SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)) return gres;
    std::string tres;
    std::size_t start = 0;
    while (start <= gres.size()) {
      const std::size_t comma = std::min(gres.find(',', start), gres.size());
      const std::string item = gres.substr(start, comma - start);
      tres += (tres.empty() ? "" : ",") + (item.starts_with("gres:") ? item : "gres:" + item);
      start = comma + 1;
    }
    return tres;
  }

  // Like sbatch --export=ALL: the submitter's environment, then the submission's variables on top.
  void set_environment(const ArraySubmission& s, const std::string& work_dir) {
    std::map<std::string, std::string> overrides = s.environment;
    overrides.try_emplace("SLURM_SUBMIT_DIR", work_dir);
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string_view line(*entry);
      if (!overrides.contains(std::string(line.substr(0, line.find('='))))) env_.push_back(text(std::string(line)));
    }
    for (const auto& [name, value] : overrides) env_.push_back(text(name + "=" + value));
    desc_.environment = env_.data();
    desc_.env_size = static_cast<uint32_t>(env_.size());
  }

  job_desc_msg_t desc_{};
  std::deque<std::string> strings_;  // a deque never moves its elements, so data() pointers stay valid
  std::vector<char*> env_;
};

ArrayTaskState task_from_record(const slurm_job_info_t& record, std::uint32_t task_id) {
  ArrayTaskState task;
  task.task_id = task_id;
  task.state = slurm_job_state_string(record.job_state);
  task.reason = slurm_job_reason_string(static_cast<enum job_state_reason>(record.state_reason));
  task.node = record.nodes != nullptr ? record.nodes : "";
  detail::set_exit_status(task, record.exit_code);
  return task;
}

// Slurm keeps one record for all still-pending tasks of an array (array_task_id NO_VAL) and names them
// in array_task_str, e.g. "2-7%2"; every task that started has its own record.
void append_tasks(const slurm_job_info_t& record, std::vector<ArrayTaskState>& tasks) {
  if (record.array_task_id != NO_VAL) {
    tasks.push_back(task_from_record(record, record.array_task_id));
  } else if (record.array_task_str != nullptr && *record.array_task_str != '\0') {
    for (const std::uint32_t id : parse_array_range(record.array_task_str).indices) {
      tasks.push_back(task_from_record(record, id));
    }
  } else if (record.array_job_id == 0) {
    tasks.push_back(task_from_record(record, 0));  // not an array at all
  }
}

struct CtlConf {
  CtlConf() { KFORGE_SLURM_CALL(slurm_load_ctl_conf(static_cast<time_t>(0), &conf)); }
  ~CtlConf() { slurm_free_ctl_conf(conf); }
  CtlConf(const CtlConf&) = delete;
  CtlConf& operator=(const CtlConf&) = delete;
  slurm_conf_t* conf = nullptr;
};

}  // namespace

LibSlurmClient::LibSlurmClient() {
  static std::once_flag initialised;
  std::call_once(initialised, [] { slurm_init(nullptr); });
}

JobId LibSlurmClient::submit_array(const ArraySubmission& submission) {
  // libslurm has no parser for free-form sbatch options; sbatch itself submits what carries any.
  if (!submission.extra_options.empty()) return CliSlurmClient().submit_array(submission);
  JobDescription desc(submission);
  submit_response_msg_t* response = nullptr;
  KFORGE_SLURM_CALL(slurm_submit_batch_job(desc.get(), &response));
  const std::unique_ptr<submit_response_msg_t, void (*)(submit_response_msg_t*)> owner(
      response, &slurm_free_submit_response_response_msg);
  if (response->error_code != SLURM_SUCCESS) {
    throw SlurmError("slurm_submit_batch_job for array '" + submission.name + "'",
                     slurm_strerror(static_cast<int>(response->error_code)), static_cast<int>(response->error_code));
  }
  return response->job_id;
}

std::vector<ArrayTaskState> LibSlurmClient::array_task_states(JobId job) {
  job_info_msg_t* message = nullptr;
  try {
    KFORGE_SLURM_CALL(slurm_load_job(&message, job, SHOW_DETAIL));
  } catch (const SlurmError& error) {
    if (error.slurm_errno() == ESLURM_INVALID_JOB_ID) return {};  // gone from the controller
    throw;
  }
  const std::unique_ptr<job_info_msg_t, void (*)(job_info_msg_t*)> owner(message, &slurm_free_job_info_msg);
  std::vector<ArrayTaskState> tasks;
  for (uint32_t i = 0; i < message->record_count; ++i) append_tasks(message->job_array[i], tasks);
  detail::sort_by_task_id(tasks);
  return tasks;
}

void LibSlurmClient::kill(const std::string& job_id_text) {
  try {
    // The id of an array job names all its tasks; "<id>_<task>" names one.
    KFORGE_SLURM_CALL(slurm_kill_job2(job_id_text.c_str(), SIGKILL, 0, nullptr));
  } catch (const SlurmError& error) {
    // Like scancel: a job that already ended, or that the controller has forgotten, needs no cancelling.
    if (error.slurm_errno() != ESLURM_ALREADY_DONE && error.slurm_errno() != ESLURM_INVALID_JOB_ID) throw;
  }
}

void LibSlurmClient::cancel(JobId job) { kill(std::to_string(job)); }

void LibSlurmClient::cancel(JobId job, std::uint32_t task) { kill(std::to_string(job) + "_" + std::to_string(task)); }

std::uint32_t LibSlurmClient::partition_node_count(const std::string& partition) {
  partition_info_msg_t* msg = nullptr;
  KFORGE_SLURM_CALL(slurm_load_partitions(static_cast<time_t>(0), &msg, SHOW_ALL));
  const std::unique_ptr<partition_info_msg_t, void (*)(partition_info_msg_t*)> owner(msg,
                                                                                     &slurm_free_partition_info_msg);
  for (std::uint32_t i = 0; i < msg->record_count; ++i) {
    const partition_info_t& p = msg->partition_array[i];
    if (p.name != nullptr && partition == p.name) return p.total_nodes;
  }
  throw SlurmError("slurm_load_partitions", "Invalid partition name specified: " + partition,
                   ESLURM_INVALID_PARTITION_NAME);
}

std::vector<std::string> LibSlurmClient::partition_node_gres(const std::string& partition) {
  partition_info_msg_t* parts = nullptr;
  KFORGE_SLURM_CALL(slurm_load_partitions(static_cast<time_t>(0), &parts, SHOW_ALL));
  const std::unique_ptr<partition_info_msg_t, void (*)(partition_info_msg_t*)> parts_owner(
      parts, &slurm_free_partition_info_msg);
  const char* members = nullptr;
  bool found = false;
  for (std::uint32_t i = 0; i < parts->record_count && !found; ++i) {
    const partition_info_t& p = parts->partition_array[i];
    if (p.name != nullptr && partition == p.name) found = true, members = p.nodes;
  }
  if (!found) {
    throw SlurmError("slurm_load_partitions", "Invalid partition name specified: " + partition,
                     ESLURM_INVALID_PARTITION_NAME);
  }
  std::vector<std::string> gres;
  if (members == nullptr || *members == '\0') return gres;
  // The partition names its nodes as a host list expression ("gpu[001-064]"); node records name one each.
  const std::unique_ptr<std::remove_pointer_t<hostlist_t>, void (*)(hostlist_t)> nodes(slurm_hostlist_create(members),
                                                                                       &slurm_hostlist_destroy);
  node_info_msg_t* msg = nullptr;
  KFORGE_SLURM_CALL(slurm_load_node(static_cast<time_t>(0), &msg, SHOW_ALL));
  const std::unique_ptr<node_info_msg_t, void (*)(node_info_msg_t*)> owner(msg, &slurm_free_node_info_msg);
  for (std::uint32_t i = 0; i < msg->record_count; ++i) {
    const node_info_t& node = msg->node_array[i];
    if (node.name == nullptr || slurm_hostlist_find(nodes.get(), node.name) < 0) continue;
    gres.emplace_back(node.gres != nullptr ? node.gres : "");
  }
  return gres;
}

SlurmLimits LibSlurmClient::limits() {
  const CtlConf loaded;
  return SlurmLimits{loaded.conf->max_array_sz, loaded.conf->max_job_cnt};
}

std::string LibSlurmClient::version() {
  const CtlConf loaded;
  return loaded.conf->version != nullptr ? loaded.conf->version : "";
}

}  // namespace kforge::slurm
