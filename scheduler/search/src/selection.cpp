// Survivor selection for one island: elitism, then tournaments without replacement among ok members.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "kforge/scheduler/search/population.hpp"

namespace kforge::scheduler {
namespace {

double fitness_key(const Member& m) {
  return std::isnan(m.fitness_ms) ? std::numeric_limits<double>::infinity() : m.fitness_ms;
}

void sort_by_fitness(std::vector<Member>& members) {
  std::stable_sort(members.begin(), members.end(),
                   [](const Member& a, const Member& b) { return fitness_key(a) < fitness_key(b); });
}

// One member per candidate id (the best one): the same experiment must not take two slots.
std::vector<Member> without_duplicates(std::vector<Member> pool) {
  std::map<std::string, std::size_t> first;
  std::vector<Member> out;
  for (Member& m : pool) {
    const auto [it, inserted] = first.emplace(m.candidate.id, out.size());
    if (m.candidate.id.empty() || inserted) {
      out.push_back(std::move(m));
    } else if (fitness_key(m) < fitness_key(out[it->second])) {
      out[it->second] = std::move(m);
    }
  }
  return out;
}

// Moves the winner of a tournament of `size` distinct contestants out of `contestants` into `winners`.
void run_tournament(std::vector<Member>& contestants, int size, std::mt19937_64& rng, std::vector<Member>& winners) {
  const std::size_t draws = std::min(contestants.size(), static_cast<std::size_t>(std::max(size, 1)));
  std::size_t best = 0;
  for (std::size_t d = 0; d < draws; ++d) {  // partial Fisher-Yates over the front of the vector
    const std::size_t j = std::uniform_int_distribution<std::size_t>(d, contestants.size() - 1)(rng);
    std::swap(contestants[d], contestants[j]);
    if (d == 0 || fitness_key(contestants[d]) < fitness_key(contestants[best])) best = d;
  }
  winners.push_back(std::move(contestants[best]));
  contestants.erase(contestants.begin() + static_cast<std::ptrdiff_t>(best));
}

}  // namespace

std::vector<Member> select_survivors(std::vector<Member> pool, const SearchSpec& search, std::mt19937_64& rng) {
  pool = without_duplicates(std::move(pool));
  sort_by_fitness(pool);
  const std::size_t target = static_cast<std::size_t>(std::max(search.population, 0));
  if (pool.size() <= target) return pool;

  const std::size_t elite = std::min(static_cast<std::size_t>(std::max(search.elite, 0)), target);
  std::vector<Member> survivors(std::make_move_iterator(pool.begin()),
                                std::make_move_iterator(pool.begin() + static_cast<std::ptrdiff_t>(elite)));
  const auto first_failure =
      std::find_if(pool.begin() + static_cast<std::ptrdiff_t>(elite), pool.end(),
                   [](const Member& m) { return fitness_key(m) == std::numeric_limits<double>::infinity(); });
  std::vector<Member> ok(std::make_move_iterator(pool.begin() + static_cast<std::ptrdiff_t>(elite)),
                         std::make_move_iterator(first_failure));
  std::vector<Member> failed(std::make_move_iterator(first_failure), std::make_move_iterator(pool.end()));

  // Failures all have the same fitness, so among them a "tournament" of size 1 is a uniform pick.
  while (survivors.size() < target && !ok.empty()) run_tournament(ok, search.tournament, rng, survivors);
  while (survivors.size() < target && !failed.empty()) run_tournament(failed, 1, rng, survivors);
  sort_by_fitness(survivors);
  return survivors;
}

}  // namespace kforge::scheduler
