// parse_campaign / load_campaign: the campaign file's top level, its campaign and search sections.
#include <string>
#include <vector>

#include "campaign_sections.hpp"

namespace kforge::scheduler {
namespace config_detail {
namespace {

const std::vector<std::string> kBackends = {"host", "cuda", "replay"};
constexpr int kMaxPopulation = 65536;  // candidates per island and generation (docs/campaign-schema.md, "Limits")
constexpr std::int64_t kMaxGenerationCandidates = std::int64_t{1} << 20;  // over all islands

bool is_backend(std::string_view name) {
  for (const auto& b : kBackends)
    if (b == name) return true;
  return false;
}

std::vector<std::string> read_targets(const MapReader& campaign, const std::string& backend) {
  const std::string allowed = "a non-empty list of distinct target names, e.g. [hopper, blackwell]";
  if (backend == "host") {
    // The host backend runs on the CPUs of whatever nodes the site maps each target to (one island per
    // target); on the local executor the single island is "host".
    std::vector<std::string> targets = campaign.get_string_list("targets", {"host"}, is_identifier, allowed);
    if (targets.empty()) campaign.fail("targets", "empty list of targets", allowed);
    return targets;
  }
  if (!campaign.has("targets")) campaign.fail_missing("targets", "backend " + backend + " needs " + allowed);
  std::vector<std::string> targets = campaign.get_string_list("targets", {}, is_identifier, allowed);
  if (targets.empty()) campaign.fail("targets", "empty list of targets", allowed);
  return targets;
}

void read_campaign_section(const MapReader& top, CampaignConfig& config) {
  const std::vector<std::string> keys = {"name", "family", "backend", "targets", "compile_flags"};
  if (!top.has("campaign")) top.fail_missing("campaign", "a mapping with keys: " + join(keys));
  MapReader campaign = top.section("campaign", keys);

  const std::string name_allowed = "a safe file name: letters, digits, '.', '_', '-'";
  config.name = campaign.require_string("name", name_allowed);
  if (!is_safe_file_name(config.name))
    campaign.fail("name", "'" + config.name + "' is not a safe file name", name_allowed);

  const std::string family_allowed = "an identifier [A-Za-z_][A-Za-z0-9_]*, e.g. gemm";
  config.family = campaign.require_string("family", family_allowed);
  if (!is_identifier(config.family))
    campaign.fail("family", "'" + config.family + "' is not an identifier", family_allowed);

  const std::string backend_allowed = "one of: " + join(kBackends);
  config.backend = campaign.require_string("backend", backend_allowed);
  if (!is_backend(config.backend))
    campaign.fail("backend", "unknown backend '" + config.backend + "'", backend_allowed);

  config.targets = read_targets(campaign, config.backend);
  for (const char* key : {"family", "backend", "targets"}) record_where(config.where, campaign, key);
  config.where["campaign"] = top.where("campaign");
  config.compile_flags =
      campaign.get_string("compile_flags", "", "a string of compiler flags, e.g. \"-funroll-loops\"");
}

}  // namespace

SearchSpec read_search(const MapReader& top) {
  MapReader search =
      top.section("search", {"generations", "population", "offspring", "elite", "tournament", "mutation_rate",
                             "crossover_rate", "seed", "migration_interval", "migration_size", "strategy",
                             "adaptive_operators", "min_operator_share", "prior", "initial"});
  SearchSpec s;
  s.generations = search.get_int("generations", s.generations, int_at_least(1));
  // Every candidate of a generation is held in memory with its source and record (several KiB each), per island:
  // beyond kMaxPopulation the scheduler would run out of memory long before the cluster ran out of work.
  IntRule population = int_between(2, kMaxPopulation);
  population.allowed += ", per island";
  s.population = search.get_int("population", s.population, population);
  IntRule offspring = int_between(1, kMaxPopulation);
  offspring.allowed += ", per island";
  s.offspring = search.get_int("offspring", s.offspring, offspring);
  IntRule elite = int_between(0, s.population - 1);
  elite.allowed += ", below search.population";
  s.elite = search.get_int("elite", s.elite, elite);
  if (s.elite >= s.population)  // the default elite against a small population
    search.fail("elite",
                "elite " + std::to_string(s.elite) + " is not below population " + std::to_string(s.population),
                elite.allowed);
  IntRule tournament = int_between(1, s.population);
  tournament.allowed += ", at most search.population";
  s.tournament = search.get_int("tournament", s.tournament, tournament);
  if (s.tournament > s.population)
    search.fail("tournament",
                "tournament " + std::to_string(s.tournament) + " exceeds population " + std::to_string(s.population),
                tournament.allowed);
  s.mutation_rate = search.get_number("mutation_rate", s.mutation_rate, number_closed(0, 1));
  s.crossover_rate = search.get_number("crossover_rate", s.crossover_rate, number_closed(0, 1));
  const double sum = s.mutation_rate + s.crossover_rate;
  if (sum > 1.0 + 1e-12)
    search.fail(search.has("crossover_rate") ? "crossover_rate" : "mutation_rate",
                "mutation_rate + crossover_rate = " + format_number(sum) + " exceeds 1",
                "mutation_rate + crossover_rate <= 1; the rest are random immigrants");
  s.seed = search.get_uint64("seed", s.seed);
  s.migration_interval = search.get_int("migration_interval", s.migration_interval, int_at_least(0));
  IntRule migrants = int_between(1, s.population);
  migrants.allowed += ", at most search.population";
  s.migration_size = search.get_int("migration_size", s.migration_size, migrants);
  const std::string strategy_allowed = "one of: evolutionary, surrogate, random";
  s.strategy = search.get_string("strategy", s.strategy, strategy_allowed);
  if (s.strategy != "evolutionary" && s.strategy != "surrogate" && s.strategy != "random")
    search.fail("strategy", "unknown strategy '" + s.strategy + "'", strategy_allowed);
  s.adaptive_operators = search.get_bool("adaptive_operators", s.adaptive_operators);
  s.min_operator_share = search.get_number("min_operator_share", s.min_operator_share, number_closed(0, 0.2));
  return s;
}

// Each island keeps its population and breeds its offspring: the whole generation is held in memory at once.
void check_generation_size(const MapReader& top, const CampaignConfig& config) {
  const std::int64_t islands = static_cast<std::int64_t>(config.targets.size());
  const std::int64_t candidates =
      islands * (static_cast<std::int64_t>(config.search.population) + config.search.offspring);
  if (candidates <= kMaxGenerationCandidates) return;
  MapReader search = top.section("search", {});
  search.fail(search.has("offspring") ? "offspring" : "population",
              std::to_string(islands) + " islands x (population " + std::to_string(config.search.population) +
                  " + offspring " + std::to_string(config.search.offspring) + ") = " + std::to_string(candidates) +
                  " candidates per generation, more than " + std::to_string(kMaxGenerationCandidates) +
                  " fit the scheduler's memory",
              "(population + offspring) x targets <= " + std::to_string(kMaxGenerationCandidates));
}

}  // namespace config_detail

CampaignConfig parse_campaign(const std::string& text, const std::filesystem::path& file) {
  using namespace config_detail;
  const std::string file_name = file.string();
  YAML::Node document = load_yaml(text, file_name);
  MapReader top(document, "", file_name,
                {"campaign", "space", "search", "evaluation", "agents", "model", "workload", "engine"},
                {file_name, 1, 1});
  CampaignConfig config;
  config.file = file;
  config.text = text;
  read_campaign_section(top, config);
  config.space = read_space(top, config.where);
  config.search = read_search(top);
  read_search_prior(top, config);
  read_search_initial(top, config);
  check_generation_size(top, config);
  read_evaluation(top, config);
  read_engine_sections(top, config);
  read_agents(top, config);
  return config;
}

CampaignConfig load_campaign(const std::filesystem::path& file) {
  return parse_campaign(config_detail::read_config_file(file), file);
}

}  // namespace kforge::scheduler
