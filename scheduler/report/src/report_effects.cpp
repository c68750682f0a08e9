// Parameter effects with their evidence for `kforge report` and `kforge plot`: how many evaluations back each
// value and how uncertain its effect is, so that a value seen once is not read as a finding.
#include <cmath>
#include <map>

#include "kforge/jobs/genome.hpp"
#include "kforge/jobs/statistics.hpp"
#include "kforge/scheduler/learning/bootstrap.hpp"
#include "kforge/scheduler/report/report.hpp"

namespace kforge::scheduler {

std::vector<ParameterEffect> parameter_effects(const ArchiveView& archive) {
  std::map<std::string, std::vector<double>> by_target;
  for (const auto& g : archive.generations())
    for (const auto& r : g.records)
      if (std::isfinite(jobs::fitness_ms(r))) by_target[r.target].push_back(r.time_median_ms);
  std::map<std::string, double> target_median;
  for (auto& [target, times] : by_target) target_median[target] = jobs::median(times);
  std::map<std::pair<std::string, std::string>, std::pair<int, std::vector<double>>> values;
  for (const auto& g : archive.generations()) {
    for (const auto& r : g.records) {
      jobs::Genome genome;
      try {
        genome = jobs::Genome::from_text(r.params);
      } catch (const std::invalid_argument&) {
        continue;  // an unreadable genome says nothing about parameters
      }
      const double f = jobs::fitness_ms(r);
      for (const auto& [name, value] : genome.params) {
        auto& v = values[{name, jobs::to_text(value)}];
        ++v.first;
        if (std::isfinite(f) && target_median.at(r.target) > 0) v.second.push_back(f / target_median.at(r.target));
      }
    }
  }
  std::vector<ParameterEffect> out;
  for (const auto& [key, v] : values) {
    ParameterEffect e{key.first, key.second, v.first, static_cast<int>(v.second.size())};
    if (!v.second.empty()) {
      const SpeedupInterval i = relative_time_effect(v.second);
      e.relative = i.estimate;
      e.ci_low = i.low;
      e.ci_high = i.high;
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace kforge::scheduler
