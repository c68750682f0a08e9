// The Slurm executor (slurm_executor.hpp): submit, re-attach, poll, map Slurm's view back onto tasks.
#include "kforge/scheduler/executors/slurm_executor.hpp"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "agent_job.hpp"
#include "batch_script.hpp"
#include "failed_task.hpp"
#include "job_ledger.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/executors/elapsed.hpp"
#include "kforge/slurm/slurm_client.hpp"
#include "kforge/slurm/task_postmortem.hpp"
#include "requeue_watch.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;
using namespace slurm_detail;

namespace {

struct ActiveArray {
  kforge::slurm::JobId job = 0;
  std::vector<int> tasks;        // array task i evaluates tasks[i]
  std::set<std::uint32_t> open;  // array task ids not finished yet
  std::string output;            // --output pattern; %a is the array task id
  int generation = 0;
};

// DIR/gNNNN/logs/array-K-%A_%a.out: where Slurm writes the output of array K (kforge's index of the array in
// this generation) task %a of Slurm array job %A, so that a file found on disk names what `sacct` shows.
fs::path array_output(const CampaignDir& dir, int generation, int k) {
  return dir.generation_dir(generation) / "logs" / ("array-" + std::to_string(k) + "-%A_%a.out");
}

std::string output_of(const ActiveArray& a, std::uint32_t task_id) {
  std::string path = a.output;
  if (auto at = path.find("%A"); at != std::string::npos) path.replace(at, 2, std::to_string(a.job));
  if (auto at = path.find("%a"); at != std::string::npos) path.replace(at, 2, std::to_string(task_id));
  return path;
}

class SlurmExecutor final : public Executor {
 public:
  SlurmExecutor(SiteConfig site, std::string campaign, CampaignDir dir, fs::path eval_binary,
                std::unique_ptr<kforge::slurm::SlurmClient> client)
      : site_(std::move(site)),
        campaign_(std::move(campaign)),
        // slurmd resolves relative paths against the job's working directory, not ours: hand it absolute ones.
        dir_(fs::absolute(dir.root()).lexically_normal()),
        eval_binary_(fs::absolute(eval_binary).lexically_normal()),
        client_(std::move(client)) {}

  std::string name() const override { return "slurm (" + client_->backend_name() + ")"; }

  AgentLauncher agent_launcher() override {
    if (site_.slurm.agent_partition.empty()) return {};
    return [this](const AgentProcessSpec& process) {
      return slurm_detail::run_agent_job(*client_, site_.slurm, campaign_, process);
    };
  }

  // Every call into Slurm goes through here, so that the time spent inside Slurm is measured apart.
  template <typename Call>
  decltype(auto) slurm(Call&& call) {
    AddElapsedTo timed(times_.slurm_calls_s);
    return call(*client_);
  }

  std::vector<TaskEnd> run_all(const std::vector<TaskLaunch>& tasks) override {
    std::map<int, TaskEnd> ends;
    std::map<int, std::vector<TaskLaunch>> by_generation;
    for (const auto& t : tasks) by_generation[t.generation].push_back(t);
    std::vector<ActiveArray> active;
    for (const auto& [generation, launches] : by_generation) {
      JobLedger ledger(dir_.generation_dir(generation) / "slurm");
      std::set<int> wanted;
      for (const auto& t : launches) wanted.insert(t.task);
      attach(ledger, generation, wanted, active);  // removes from `wanted` what a live array already covers
      const size_t attached = active.size();
      try {
        submit(ledger, generation, launches, wanted, active);
      } catch (const ConfigError&) {
        // The site is wrong for one island: what this call submitted for the others would run for nothing.
        for (size_t i = attached; i < active.size(); ++i) slurm([&](auto& c) { c.cancel(active[i].job); });
        throw;
      }
    }
    wait(active, ends);
    std::vector<TaskEnd> out;
    for (const auto& t : tasks) {
      auto it = ends.find(t.task);
      out.push_back(it != ends.end() ? it->second : TaskEnd{t.task, false, "no Slurm array reported on this task", ""});
    }
    return out;
  }

 private:
  void attach(const JobLedger& ledger, int ledger_generation, std::set<int>& wanted, std::vector<ActiveArray>& active) {
    for (const auto& entry : ledger.load()) {
      ActiveArray a{entry.job_id, entry.tasks, {}, array_output(dir_, ledger_generation, entry.array_index).string()};
      a.generation = ledger_generation;
      for (const auto& s : slurm([&](auto& c) { return c.array_task_states(entry.job_id); })) {
        if (!s.is_finished()) a.open.insert(s.task_id);
      }
      if (a.open.empty()) continue;  // ended (or forgotten by slurmctld): the shards tell what it did
      std::cerr << "kforge: re-attached to Slurm array " << entry.job_id << " (" << a.open.size()
                << " task(s) still queued or running)" << std::endl;
      for (int t : entry.tasks) wanted.erase(t);
      for (auto& s : slurm([&](auto& c) { return c.array_task_states(entry.job_id); }))
        a.open.insert(s.task_id);  // follow every task
      active.push_back(std::move(a));
    }
  }

  void submit(const JobLedger& ledger, int generation, const std::vector<TaskLaunch>& launches,
              const std::set<int>& wanted, std::vector<ActiveArray>& active) {
    std::map<std::string, std::vector<int>> by_target;
    for (const auto& t : launches) {
      if (wanted.count(t.task)) by_target[t.target].push_back(t.task);
    }
    const auto limits = slurm([](auto& c) { return c.limits(); });
    size_t chunk = limits.max_array_size > 0 ? limits.max_array_size : 1000;
    for (const auto& [target, tasks] : by_target) {
      for (size_t begin = 0; begin < tasks.size();) {
        std::vector<int> part(tasks.begin() + static_cast<std::ptrdiff_t>(begin),
                              tasks.begin() + static_cast<std::ptrdiff_t>(std::min(tasks.size(), begin + chunk)));
        if (auto job = submit_array(ledger, generation, target, part, chunk)) {
          active.push_back(ActiveArray{*job, part, {}, array_output(dir_, generation, last_array_index_).string()});
          active.back().generation = generation;
          for (std::uint32_t i = 0; i < part.size(); ++i) active.back().open.insert(i);
          begin += part.size();
        }
      }
    }
  }

  // Submits one array; on back-pressure either shrinks `chunk` (returns nullopt so the caller re-splits) or
  // waits and retries. Any other refusal names the site key Slurm objected to.
  std::optional<kforge::slurm::JobId> submit_array(const JobLedger& ledger, int generation, const std::string& target,
                                                   const std::vector<int>& tasks, size_t& chunk) {
    const int k = ledger.next_array_index();
    ArrayJob job{campaign_,
                 generation,
                 target,
                 k,
                 static_cast<int>(tasks.size()),
                 ledger.task_list(k),
                 dir_.tasks_dir(generation),
                 array_output(dir_, generation, k),
                 eval_binary_};
    fs::create_directories(dir_.generation_dir(generation) / "logs");
    ledger.write_task_list(k, tasks);
    const std::string script = render_batch_script(job, site_.slurm);
    jobs::write_text_file_atomically(ledger.script(k), script);
    kforge::slurm::ArraySubmission sub = submission_for(job, script);
    sub.exclude = nodes_to_exclude(generation, target, tasks);
    for (double wait_s = site_.slurm.poll_interval_s;; wait_s = std::min(wait_s * 2, 60.0)) {
      try {
        const auto id = slurm([&](auto& c) { return c.submit_array(sub); });
        ledger.record(LedgerEntry{id, k, target, tasks});
        last_array_index_ = k;
        std::cerr << "kforge: submitted " << job_name(job) << " as Slurm array " << id << " (" << tasks.size()
                  << " task(s))" << std::endl;
        return id;
      } catch (const kforge::slurm::SlurmError& e) {
        if (!e.is_back_pressure()) throw rejected_by_slurm(target, e);
        if (tasks.size() > 1 && chunk > 1) {
          chunk = std::max<size_t>(1, tasks.size() / 2);
          std::cerr << "kforge: Slurm refused an array of " << tasks.size() << " (" << e.slurm_message()
                    << "); splitting into arrays of " << chunk << std::endl;
          return std::nullopt;
        }
        std::cerr << "kforge: Slurm back-pressure (" << e.slurm_message() << "); retrying in " << wait_s << " s"
                  << std::endl;
        sleep_checking_stop(wait_s, {});
      }
    }
  }

  // A retried task avoids the nodes it failed on, where its partition has others. When it cannot avoid all of
  // them (a multi-node task on a small partition), it avoids those the controller now reports not responding
  // or out of service: a node that died under a task is not yet DOWN when the task's failure is seen.
  std::string nodes_to_exclude(int generation, const std::string& target, const std::vector<int>& tasks) {
    std::set<std::string> failed;
    for (int t : tasks) {
      if (auto it = failed_nodes_.find({generation, t}); it != failed_nodes_.end())
        failed.insert(it->second.begin(), it->second.end());
    }
    if (failed.empty()) return "";
    const std::string& partition = site_.slurm.targets.at(target).partition;
    const auto nodes = slurm([&](auto& c) { return c.partition_node_count(partition); });
    const auto per_task = static_cast<std::uint32_t>(std::max(1, site_.slurm.targets.at(target).nodes));
    std::string list = exclude_list(failed, nodes, per_task), which = "the nodes they failed on";
    if (list.empty()) {
      std::set<std::string> unusable;
      for (const auto& nodes_of_task : failed) {
        for (const auto& n : kforge::slurm::query_node_states(nodes_of_task)) {
          if (!n.usable()) unusable.insert(n.name);
        }
      }
      list = exclude_list(unusable, nodes, per_task);
      which = "those not responding or out of service now";
    }
    std::cerr << "kforge: retry in partition " << partition << " (" << nodes << " node(s)): "
              << (list.empty() ? "no node excluded, too few would be left" : "excluding " + which + ": " + list)
              << std::endl;
    return list;
  }

  kforge::slurm::ArraySubmission submission_for(const ArrayJob& job, const std::string& script) const {
    const SlurmExecutorSpec& s = site_.slurm;
    const SlurmTargetSpec& t = s.targets.at(job.target);
    kforge::slurm::ArraySubmission sub;
    sub.name = job_name(job);
    sub.script = script;
    sub.array = array_spec(job, s);
    sub.partition = t.partition;
    sub.gres = t.gres;
    sub.account = s.account_of(job.target);
    sub.qos = s.qos_of(job.target);
    sub.reservation = s.reservation;
    const int ranks = s.ranks_per_task_of(job.target);
    sub.nodes = static_cast<std::uint32_t>(std::max(1, t.nodes));
    sub.ntasks = static_cast<std::uint32_t>(ranks);
    sub.ntasks_per_node = static_cast<std::uint32_t>(ranks / std::max(1, t.nodes));
    sub.cpus_per_task = static_cast<std::uint32_t>(s.cpus_per_rank_of(job.target));
    sub.time_limit_minutes = static_cast<std::uint32_t>(s.time_limit_min_of(job.target));
    sub.mem = t.mem;
    sub.exclusive = t.exclusive;
    sub.extra_options = t.extra_sbatch_options;
    sub.output = job.output.string();
    sub.work_dir = dir_.root().string();
    sub.comment = comment(job);
    sub.wckey = "kforge";
    sub.requeue = true;
    sub.environment = s.environment;
    return sub;
  }

  // "SITE:LINE:COL: slurm.targets.hopper.partition: Slurm rejected ...": points at the key Slurm refused.
  ConfigError rejected_by_slurm(const std::string& target, const kforge::slurm::SlurmError& e) const {
    std::string msg = e.slurm_message();
    std::string lower;
    for (char c : msg) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const SlurmTargetSpec& t = site_.slurm.targets.at(target);
    std::string key = "slurm.targets." + target;
    if (lower.find("partition") != std::string::npos)
      key += ".partition";
    else if (lower.find("gres") != std::string::npos || lower.find("generic resource") != std::string::npos)
      key += ".gres";
    else if (lower.find("account") != std::string::npos)
      key = t.account ? key + ".account" : "slurm.account";
    else if (lower.find("qos") != std::string::npos)
      key = t.qos ? key + ".qos" : "slurm.qos";
    else if (lower.find("reservation") != std::string::npos)
      key = "slurm.reservation";
    return ConfigError(t.where, key, "Slurm rejected the submission: " + msg,
                       "a value this cluster accepts (partition '" + t.partition + "', gres '" + t.gres + "')");
  }

  void wait(std::vector<ActiveArray>& active, std::map<int, TaskEnd>& ends) {
    auto open = [&] {
      for (const auto& a : active)
        if (!a.open.empty()) return true;
      return false;
    };
    while (open()) {
      sleep_checking_stop(site_.slurm.poll_interval_s, active);
      for (auto& a : active) poll(a, ends);
    }
  }

  void poll(ActiveArray& a, std::map<int, TaskEnd>& ends) {
    if (a.open.empty()) return;
    const auto states = slurm([&](auto& c) { return c.array_task_states(a.job); });
    if (states.empty()) {  // forgotten by slurmctld (MinJobAge): the shards tell what happened
      for (auto i : a.open) {
        if (i < a.tasks.size()) {
          ends[a.tasks[i]] =
              TaskEnd{a.tasks[i], false, "Slurm array " + std::to_string(a.job) + " is no longer known to slurmctld",
                      output_of(a, i)};
        }
      }
      a.open.clear();
      return;
    }
    for (const auto& s : states) {
      if (!a.open.count(s.task_id) || s.task_id >= a.tasks.size()) continue;
      watch_requeue(a, s);
      if (!s.is_finished()) continue;
      a.open.erase(s.task_id);
      const int task = a.tasks[s.task_id];
      const bool ok = s.state == "COMPLETED" && s.exit_code == 0;
      TaskEnd end{task, ok, "", output_of(a, s.task_id)};
      if (auto h = history_.find({a.generation, task}); h != history_.end()) {
        end.history = h->second;
        history_.erase(h);
      }
      if (!ok) {
        // kforge cancels only while it stops (and then stops polling): a CANCELLED task was someone's scancel.
        end.retry = s.state != "CANCELLED";
        if (end.retry && !s.node.empty()) failed_nodes_[{a.generation, task}].insert(s.node);
        end.reason = describe_failed_task(a.job, s, end.log, postmortems_left_-- > 0);
      }
      ends[task] = end;
    }
  }

  // A requeue (requeue_watch.hpp) is told at once and kept for the task's end, with the state of the nodes it
  // ran on: the one that failed shows as down or not responding.
  void watch_requeue(const ActiveArray& a, const kforge::slurm::ArrayTaskState& s) {
    const auto requeue = requeues_.observe(a.job, s);
    if (!requeue) return;
    const std::string text = requeue->text + "; nodes: " + kforge::slurm::node_states(requeue->nodes);
    std::cerr << "kforge: " << text << std::endl;
    std::string& history = history_[{a.generation, a.tasks[s.task_id]}];
    history += (history.empty() ? "" : "; ") + text;
  }

  // Sleeps in short steps. On a stop signal (executor.hpp: StopKind) it cancels the arrays still queued or
  // running when interrupted (Ctrl-C) or when the campaign was cancelled (DIR/CANCELLED exists); on SIGTERM it
  // leaves them running and a restarted driver re-attaches.
  void sleep_checking_stop(double seconds, const std::vector<ActiveArray>& active) {
    AddElapsedTo timed(times_.waiting_s);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (stop_requested()) {
        const bool cancelled = fs::exists(dir_.root() / "CANCELLED");
        const bool cancel = cancelled || requested_stop_kind() == StopKind::interrupt;
        std::string jobs;
        for (const auto& a : active) {
          if (!cancel || a.open.empty()) continue;
          slurm([&](auto& c) { c.cancel(a.job); });
          jobs += (jobs.empty() ? "" : ", ") + std::to_string(a.job);
        }
        if (cancelled) throw StopRequested("campaign cancelled: its Slurm arrays were cancelled (" + jobs + ")");
        if (cancel) {
          throw StopRequested("interrupted: cancelled Slurm array(s) " + (jobs.empty() ? "-" : jobs) +
                              "; run the same command again to resume (finished tasks are kept)");
        }
        throw StopRequested("stopped by SIGTERM: Slurm arrays left running; the same command re-attaches to them");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  SiteConfig site_;
  std::string campaign_;
  CampaignDir dir_;
  fs::path eval_binary_;
  std::unique_ptr<kforge::slurm::SlurmClient> client_;
  std::map<std::pair<int, int>, std::set<std::string>> failed_nodes_;  // (generation, task) -> node lists
  RequeueWatch requeues_;
  std::map<std::pair<int, int>, std::string> history_;  // (generation, task) -> requeues seen, not yet reported
  int postmortems_left_ = 8;  // failed tasks that still get a full post-mortem (task_postmortem.hpp)
  int last_array_index_ = 0;  // of the array submit_array last submitted
};

}  // namespace

std::unique_ptr<Executor> make_slurm_executor(const SiteConfig& site, const std::string& campaign,
                                              const CampaignDir& dir, const fs::path& eval_binary) {
  return std::make_unique<SlurmExecutor>(site, campaign, dir, eval_binary,
                                         kforge::slurm::make_slurm_client(site.slurm.client));
}

}  // namespace kforge::scheduler
