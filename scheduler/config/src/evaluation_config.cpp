// The evaluation section: sandbox limits, timing policy, problem size and baselines (jobs::EvalSettings).
#include <filesystem>
#include <string>
#include <vector>

#include "campaign_sections.hpp"

namespace kforge::scheduler::config_detail {
namespace {

std::map<std::string, std::int64_t> read_problem(const MapReader& evaluation) {
  const std::string allowed =
      "a mapping NAME: size with integer sizes >= 0 (each family's keys have their own range), e.g. {M: 384, N: 384, "
      "K: 384}";
  MapReader problem = evaluation.section("problem", {});
  std::map<std::string, std::int64_t> sizes;
  for (const auto& [name, value] : problem.entries()) {
    const std::string& n = name.Scalar();
    if (!is_identifier(n)) problem.fail_at(name, problem.key_path(n), "'" + n + "' is not an identifier", allowed);
    // The family's schema checks each key's own range (check_problem); a flag such as varlen may be 0.
    sizes[n] = problem.get_int64(n, 0, int_at_least(0));
  }
  return sizes;
}

// Limits are converted to bytes, microseconds and rlim_t on the nodes: the largest values accepted here keep every
// conversion inside 64 bits (docs/campaign-schema.md, "Limits").
constexpr std::int64_t kMaxLimitMb = std::int64_t{1} << 24;  // 16 TiB; times 2^20 stays far below 2^63
constexpr double kMaxSeconds = 1e6;                          // about 11.6 days; in microseconds far below 2^63

NumberRule seconds_rule() {
  NumberRule rule = number_closed(0.0, kMaxSeconds);
  rule.min_open = true;
  rule.allowed = "a number of seconds > 0 and <= 1e+06";
  return rule;
}

IntRule megabytes_rule() {
  IntRule rule = int_between(1, kMaxLimitMb);
  rule.allowed += " (MiB; 16 TiB at most, so that the limit in bytes fits 64 bits)";
  return rule;
}

void read_repeats(const MapReader& evaluation, jobs::EvalSettings& eval) {
  eval.warmup = evaluation.get_int("warmup", eval.warmup, int_at_least(0));
  eval.min_repeats = evaluation.get_int("min_repeats", eval.min_repeats, int_at_least(1));
  eval.max_repeats = evaluation.get_int("max_repeats", eval.max_repeats, int_at_least(1));
  if (eval.min_repeats > eval.max_repeats) {
    // Point at what the user wrote: a lone max_repeats below the default min_repeats is the culprit.
    const bool blame_max = evaluation.has("max_repeats") && !evaluation.has("min_repeats");
    evaluation.fail(blame_max ? "max_repeats" : "min_repeats",
                    "min_repeats " + std::to_string(eval.min_repeats) + " is greater than max_repeats " +
                        std::to_string(eval.max_repeats),
                    "min_repeats <= max_repeats");
  }
  eval.target_spread = evaluation.get_number("target_spread", eval.target_spread, number_open(0, 1));
  eval.time_cap_s = evaluation.get_number("time_cap_s", eval.time_cap_s, seconds_rule());
}

void read_limits(const MapReader& evaluation, jobs::EvalSettings& eval) {
  eval.wall_timeout_s = evaluation.get_number("timeout_s", eval.wall_timeout_s, seconds_rule());
  eval.cpu_limit_s = evaluation.get_number("cpu_limit_s", eval.cpu_limit_s, seconds_rule());
  eval.memory_limit_mb = evaluation.get_int64("memory_limit_mb", eval.memory_limit_mb, megabytes_rule());
  eval.file_limit_mb = evaluation.get_int64("file_limit_mb", eval.file_limit_mb, megabytes_rule());
  eval.compile_timeout_s = evaluation.get_number("compile_timeout_s", eval.compile_timeout_s, seconds_rule());
}

// The measured space a replay campaign answers from; relative paths are relative to the campaign file, and the
// stored path is absolute so that manifests work from any task's working directory.
void read_replay_cache(const MapReader& evaluation, CampaignConfig& campaign) {
  const std::string allowed = "a Kernel Tuner cache file (.json or .json.gz), relative to the campaign file";
  if (!evaluation.has("replay_cache")) {
    if (campaign.backend == "replay") evaluation.fail_missing("replay_cache", "backend replay needs " + allowed);
    return;
  }
  std::filesystem::path cache = evaluation.get_string("replay_cache", "", allowed);
  if (cache.is_relative()) cache = std::filesystem::absolute(campaign.file).parent_path() / cache;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(cache, ec)) {
    evaluation.fail("replay_cache", "no such file: " + cache.string(), allowed);
  }
  campaign.eval.replay_cache = cache.lexically_normal().string();
}

}  // namespace

void read_evaluation(const MapReader& top, CampaignConfig& campaign) {
  MapReader evaluation =
      top.section("evaluation", {"problem",         "baselines",       "timeout_s",         "cpu_limit_s",
                                 "memory_limit_mb", "file_limit_mb",   "compile_timeout_s", "warmup",
                                 "min_repeats",     "max_repeats",     "target_spread",     "time_cap_s",
                                 "compiler",        "compile_flags",   "compile_only",      "candidates_per_rank",
                                 "replay_cache",    "max_spill_bytes", "confirm_top",       "confirm_rounds"});
  jobs::EvalSettings& eval = campaign.eval;
  eval.problem = read_problem(evaluation);
  eval.baselines = evaluation.get_string_list("baselines", eval.baselines, is_identifier,
                                              "a list of distinct baseline names, e.g. [reference, openblas]");
  read_limits(evaluation, eval);
  read_repeats(evaluation, eval);
  const std::string compiler_allowed = "a compiler command, e.g. c++ or /usr/bin/g++-12";
  eval.compiler = evaluation.get_string("compiler", eval.compiler, compiler_allowed);
  if (eval.compiler.empty()) evaluation.fail("compiler", "empty compiler", compiler_allowed);
  eval.compile_flags =
      evaluation.get_string("compile_flags", eval.compile_flags, "a string of compiler flags, e.g. \"-O3\"");
  eval.compile_only = evaluation.get_bool("compile_only", eval.compile_only);
  eval.max_spill_bytes = evaluation.get_int64("max_spill_bytes", eval.max_spill_bytes, int_at_least(0));
  campaign.candidates_per_rank =
      evaluation.get_int("candidates_per_rank", campaign.candidates_per_rank, int_at_least(1));
  read_replay_cache(evaluation, campaign);
  campaign.confirm.top = evaluation.get_int("confirm_top", campaign.confirm.top, int_at_least(0));
  campaign.confirm.rounds = evaluation.get_int("confirm_rounds", campaign.confirm.rounds, int_at_least(2));
  campaign.where["evaluation"] = evaluation.where();
  for (const char* key : {"problem", "baselines", "memory_limit_mb"}) record_where(campaign.where, evaluation, key);
}

}  // namespace kforge::scheduler::config_detail
