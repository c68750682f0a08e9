#pragma once
// Campaign and site configuration, parsed from YAML and validated (docs/campaign-schema.md, docs/site-schema.md).
// Every error names FILE:LINE:COLUMN, the key, what is wrong and what is allowed; nothing is written before
// both files validate.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/jobs/genome.hpp"
#include "kforge/jobs/manifest.hpp"

namespace kforge::scheduler {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

// what() is "FILE:LINE:COLUMN: key: what is wrong (what is allowed)".
class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation where, std::string key, std::string problem, std::string allowed);
  const SourceLocation& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  SourceLocation where_;
  std::string key_;
};

struct ParameterSpec {
  std::string name;
  std::vector<jobs::ParamValue> values;  // non-empty, no duplicates
  SourceLocation where;
};

struct ConstraintSpec {
  std::string expression;  // e.g. "MC % MR == 0 and KC <= 512"
  SourceLocation where;
};

struct SpaceSpec {
  std::vector<ParameterSpec> parameters;
  std::vector<ConstraintSpec> constraints;
};

struct SearchSpec {
  int generations = 5;
  int population = 16;  // survivors kept per island
  int offspring = 16;   // new candidates per island per generation
  int elite = 2;        // best kept unconditionally
  int tournament = 3;
  double mutation_rate = 0.6;   // share of offspring from mutation
  double crossover_rate = 0.3;  // share from crossover; the rest are random immigrants
  std::uint64_t seed = 1;
  int migration_interval = 0;  // every N generations each island's best move to the next island (ring); 0 = never
  int migration_size = 1;      // how many migrate
  // How the built-in offspring are made: "evolutionary" (mutation, crossover, immigrants from the island's
  // survivors), or a model-based strategy told every evaluation of the island's target and asked for the
  // offspring: "surrogate" (the Gaussian-process strategy of bench/search_efficiency) or "random".
  std::string strategy = "evolutionary";
  // Measurements of the same space made elsewhere (another GPU, another problem size, another island's
  // campaign): folders of earlier campaigns (their campaign.h5) and Kernel Tuner caches (.json, .json.gz),
  // absolute. The surrogate strategy warm-starts from their ranking (docs/campaign-schema.md, search.prior).
  std::vector<std::filesystem::path> prior;
  // Without search.prior, earlier campaigns of the same space in the catalog are the prior ("catalog"); a list
  // names them instead ("listed"); `prior: none` turns every prior off ("none").
  std::string prior_from = "catalog";
  // Whole genomes the user already knows (a hand-tuned configuration, a vendor default): generation 0 of every
  // island evaluates them first, then breeds from whatever wins. Each value is one the space lists.
  struct InitialGenome {
    jobs::Genome genome;
    SourceLocation where;  // the entry of search.initial, for the constraint check's error
  };
  std::vector<InitialGenome> initial;
  bool adaptive_operators = true;    // operator shares follow their children's success (learning.hpp)
  double min_operator_share = 0.05;  // an enabled operator never gets less of the offspring than this
};

// An external program used as a variation operator (docs/agents.md): it reads a brief, writes children.
struct AgentOperatorConfig {
  std::string name;                  // the children's op is "agent:<name>"
  std::vector<std::string> command;  // argv; relative paths that exist next to the campaign file are made absolute
  double weight = 0.25;              // share of each island's offspring asked of this agent
  double timeout_s = 120.0;
  SourceLocation where;
};

// The confirmation after the last generation (docs/campaign-schema.md, evaluation.confirm_top / confirm_rounds):
// the best `top` candidates of each target re-timed against the baselines over `rounds` paired rounds.
struct ConfirmSpec {
  int top = 3;  // 0: no automatic confirmation (`kforge confirm` still works)
  int rounds = 10;
};

struct CampaignConfig {
  std::filesystem::path file;
  std::string text;  // the file's bytes (hashed into provenance)
  std::string name;
  std::string family;                // "gemm"
  std::string backend;               // "host" ("cuda", "replay" later)
  std::vector<std::string> targets;  // one island per target; host campaigns use ["host"]
  std::string compile_flags;         // extra per-candidate flags
  SpaceSpec space;
  SearchSpec search;
  jobs::EvalSettings eval;      // limits, timing policy, problem size, baselines
  int candidates_per_rank = 4;  // how much work one array task gets per rank
  ConfirmSpec confirm;
  std::vector<AgentOperatorConfig> agents;  // from generation 1 on, beside the built-in operators
  // engine.kernels_from: earlier gemm campaigns whose best kernels seed an engine campaign's first generation
  std::vector<std::filesystem::path> engine_kernels_from;
  // Where values were written, by dotted key ("campaign.family", "campaign.targets[1]", "evaluation.problem.M",
  // "evaluation.baselines[0]", "space.parameters.MC[2]"): the checks against the family schema that run after
  // parsing (campaign_validation.hpp) point at them. Absent keys fall back to their section or 1:1.
  std::map<std::string, SourceLocation> where;
  SourceLocation location_of(const std::string& key) const;  // the key, else its closest recorded parent
};

struct LocalExecutorSpec {
  int ranks_per_task = 2;
  int max_concurrent_tasks = 1;
  std::string mpirun = "mpirun";
  std::vector<std::string> mpirun_args;  // appended after -np N, e.g. --oversubscribe
};

// Where one hardware target's array tasks run on a Slurm site. The resource keys a target may leave unset
// (ranks_per_task .. qos) fall back to the site-wide slurm.* value: read them through SlurmExecutorSpec::*_of.
struct SlurmTargetSpec {
  std::string partition;
  std::string gres;        // per node, e.g. "gpu:h100:4"; empty for CPU targets
  std::string constraint;  // --constraint, optional
  SourceLocation where;
  int nodes = 1;          // nodes of one array task; its ranks are spread evenly over them
  int gpus_per_node = 0;  // GPUs one node of the partition has (0: not said); at most one rank per GPU
  std::optional<int> ranks_per_task;
  std::optional<int> cpus_per_rank;
  std::optional<int> time_limit_min;
  std::string mem;         // --mem per node in Slurm's form ("256G", "500000M"); empty: Slurm's default
  bool exclusive = false;  // --exclusive: whole nodes, so nothing else times on the same GPUs or cores
  std::optional<std::string> account;
  std::optional<std::string> qos;
  std::vector<std::string> extra_sbatch_options;  // "--name" or "--name=value", none that kforge sets itself
  SourceLocation partition_where, gres_where;     // where a controller check points (kforge validate)
};

struct SlurmExecutorSpec {
  std::string client = "auto";  // auto | libslurm | cli
  std::string conf;             // slurm.conf of the site; when set, SLURM_CONF for this process (slurm_conf.hpp)
  SourceLocation conf_where;
  std::string account;
  std::string qos;
  std::string reservation;
  int time_limit_min = 30;  // per array task
  int ranks_per_task = 1;   // MPI ranks of one array task (one per GPU of a node)
  int cpus_per_rank = 1;
  int max_concurrent_tasks = 16;    // the array throttle (%N)
  std::string mpi_launch = "srun";  // srun (srun --mpi=MPI) | mpirun
  std::string srun_mpi = "pmix";
  std::vector<std::string> modules;                // `module load` lines in the batch script
  std::map<std::string, std::string> environment;  // exported in the batch script
  double poll_interval_s = 2.0;
  // Agent operators run as Slurm jobs (one-task arrays) in this CPU partition, under the agent's time limit;
  // empty: they run as local processes on the driver's node.
  std::string agent_partition;
  SourceLocation agent_partition_where;            // where `kforge validate` points when the controller lacks it
  int agent_cpus = 1;                              // --cpus-per-task of an agent's job
  std::map<std::string, SlurmTargetSpec> targets;  // campaign target name -> where it runs
  SourceLocation targets_where;

  // A target's value where it sets one, else the site-wide one; target must be a key of targets.
  int ranks_per_task_of(const std::string& target) const {
    return targets.at(target).ranks_per_task.value_or(ranks_per_task);
  }
  int cpus_per_rank_of(const std::string& target) const {
    return targets.at(target).cpus_per_rank.value_or(cpus_per_rank);
  }
  int time_limit_min_of(const std::string& target) const {
    return targets.at(target).time_limit_min.value_or(time_limit_min);
  }
  std::string account_of(const std::string& target) const { return targets.at(target).account.value_or(account); }
  std::string qos_of(const std::string& target) const { return targets.at(target).qos.value_or(qos); }
};

struct SiteConfig {
  std::filesystem::path file;  // "<embedded local.yaml>" for the default
  std::string text;
  std::string name;
  std::string executor = "local";  // "local" ("slurm" comes with the Slurm executor)
  LocalExecutorSpec local;
  SlurmExecutorSpec slurm;
  int max_task_retries = 2;
  // A generation in which at least this share of the records failed for infrastructure reasons (infra_error:
  // a task that never ran, a missing shard, no GPU) stops the campaign instead of breeding from it.
  double stop_at_infra_error_share = 1.0;
  // The catalog of finished campaigns (docs/catalog.md): a folder, "none", or "" for each user's own catalog.
  std::string catalog;

  // MPI ranks of one task under the chosen executor.
  int ranks_per_task() const { return executor == "slurm" ? slurm.ranks_per_task : local.ranks_per_task; }
  // ... of one task of this target (a Slurm target may set its own).
  int ranks_per_task(const std::string& target) const {
    if (executor != "slurm") return local.ranks_per_task;
    return slurm.targets.count(target) ? slurm.ranks_per_task_of(target) : slurm.ranks_per_task;
  }
};

CampaignConfig load_campaign(const std::filesystem::path& file);
SiteConfig load_site(const std::filesystem::path& file);
SiteConfig embedded_default_site();  // site-configs/local.yaml, compiled in

// Cross-file checks: with the slurm executor every campaign target needs an entry in slurm.targets.
// Throws ConfigError located in the site file.
void check_site_serves_campaign(const SiteConfig& site, const CampaignConfig& campaign);

// Parse from text (file is used only in messages); the load_* functions read the file and call these.
CampaignConfig parse_campaign(const std::string& text, const std::filesystem::path& file);
SiteConfig parse_site(const std::string& text, const std::filesystem::path& file);

}  // namespace kforge::scheduler
