// Lessons over the campaign's records (learning.hpp): the effect of each parameter value on time and on
// failure, operator success, failure causes, and the sentences an agent reads in its brief.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>

#include "kforge/jobs/statistics.hpp"
#include "kforge/scheduler/learning/bootstrap.hpp"
#include "kforge/scheduler/learning/learning.hpp"

namespace kforge::scheduler {
namespace {

constexpr std::size_t kMaxFailureGroups = 20;
constexpr std::size_t kCauseLength = 120;

using jobs::median;

// First line of the evidence, digits folded to '#', so that one cause with different numbers is one group.
std::string cause_of(const std::string& evidence) {
  std::string line = evidence.substr(0, evidence.find('\n'));
  std::string out;
  for (char ch : line) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += ch;
    }
    if (out.size() >= kCauseLength) break;
  }
  return out.empty() ? "(no evidence)" : out;
}

struct ValueStats {
  int evaluated = 0;
  int failed = 0;
  std::vector<double> times_ms, relative;  // ok evaluations: raw, and over their target's median
};

std::vector<const jobs::EvalRecord*> all_records(const ArchiveView& archive, const jobs::Generation& latest) {
  std::vector<const jobs::EvalRecord*> out;
  for (const auto& g : archive.generations())
    if (g.generation != latest.generation)
      for (const auto& r : g.records) out.push_back(&r);
  for (const auto& r : latest.records) out.push_back(&r);
  return out;
}

std::vector<jobs::ParameterLesson> parameter_lessons(const std::vector<const jobs::EvalRecord*>& records) {
  std::map<std::string, std::vector<double>> by_target;
  for (const auto* r : records)
    if (std::isfinite(jobs::fitness_ms(*r))) by_target[r->target].push_back(r->time_median_ms);
  std::map<std::string, double> target_median;
  for (auto& [target, times] : by_target) target_median[target] = median(times);
  std::map<std::pair<std::string, std::string>, ValueStats> stats;
  for (const auto* r : records) {
    jobs::Genome genome;
    try {
      genome = jobs::Genome::from_text(r->params);
    } catch (const std::invalid_argument&) {
      continue;  // a record without a readable genome teaches nothing about parameters
    }
    const double f = jobs::fitness_ms(*r);
    for (const auto& [name, value] : genome.params) {
      ValueStats& s = stats[{name, jobs::to_text(value)}];
      ++s.evaluated;
      if (!std::isfinite(f)) {
        ++s.failed;
        continue;
      }
      s.times_ms.push_back(f);
      s.relative.push_back(f / target_median.at(r->target));
    }
  }
  std::vector<jobs::ParameterLesson> out;
  for (const auto& [key, s] : stats) {
    jobs::ParameterLesson l{key.first,          key.second, s.evaluated,       s.failed,
                            median(s.times_ms), jobs::kNaN, median(s.relative)};
    if (!s.times_ms.empty()) l.best_ms = *std::min_element(s.times_ms.begin(), s.times_ms.end());
    const SpeedupInterval effect = relative_time_effect(s.relative);  // the same figures as kforge report's
    l.relative = effect.estimate, l.ci_low = effect.low, l.ci_high = effect.high;
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<jobs::FailureLesson> failure_lessons(const std::vector<const jobs::EvalRecord*>& records) {
  std::map<std::pair<std::string, std::string>, jobs::FailureLesson> groups;
  for (const auto* r : records) {
    if (r->status == jobs::Status::ok) continue;
    const std::string status(jobs::to_string(r->status));
    jobs::FailureLesson& f = groups[{status, cause_of(r->evidence)}];
    if (f.count++ == 0) f = {status, cause_of(r->evidence), 1, r->candidate_id};
  }
  std::vector<jobs::FailureLesson> out;
  for (auto& [key, f] : groups) out.push_back(std::move(f));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
  if (out.size() > kMaxFailureGroups) out.resize(kMaxFailureGroups);
  return out;
}

__attribute__((format(printf, 1, 2))) std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

// One sentence per parameter: its fastest and slowest value (by the geometric mean of their times relative to
// the typical time, with the sample count and the 95% interval that back it) and values that fail most; then
// operators and failure causes.
std::vector<std::string> summary_of(const jobs::Lessons& l) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<const jobs::ParameterLesson*>> by_parameter;
  for (const auto& p : l.parameters) by_parameter[p.parameter].push_back(&p);
  for (const auto& [name, values] : by_parameter) {
    const jobs::ParameterLesson *fast = nullptr, *slow = nullptr, *fragile = nullptr;
    for (const auto* v : values) {
      if (std::isfinite(v->ci_high) && v->evaluated - v->failed >= 2) {
        if (!fast || v->relative < fast->relative) fast = v;
        if (!slow || v->relative > slow->relative) slow = v;
      }
      if (v->failed * 2 > v->evaluated && v->evaluated >= 2 && (!fragile || v->failed > fragile->failed)) fragile = v;
    }
    if (fast && slow && fast != slow)
      out.push_back(
          format("%s=%s runs at %.2fx the typical time (%d ok, interval %.2f-%.2f), %s=%s at %.2fx (%d ok, "
                 "interval %.2f-%.2f).",
                 name.c_str(), fast->value.c_str(), fast->relative, fast->evaluated - fast->failed, fast->ci_low,
                 fast->ci_high, name.c_str(), slow->value.c_str(), slow->relative, slow->evaluated - slow->failed,
                 slow->ci_low, slow->ci_high));
    if (fragile)
      out.push_back(format("%s=%s failed %d of %d evaluations.", name.c_str(), fragile->value.c_str(), fragile->failed,
                           fragile->evaluated));
  }
  for (const auto& o : l.operators)
    out.push_back(format("Operator %s: %d children, %d ok, %d improved on their parents.", o.op.c_str(), o.children,
                         o.ok, o.improved));
  for (std::size_t n = 0; n < std::min<std::size_t>(5, l.failures.size()); ++n) {
    const auto& f = l.failures[n];
    out.push_back(format("%d x %s: %s (e.g. %s).", f.count, f.status.c_str(), f.cause.c_str(),
                         f.example_id.substr(0, 12).c_str()));
  }
  return out;
}

}  // namespace

jobs::Lessons derive_lessons(const ArchiveView& archive, const jobs::Generation& latest) {
  const auto records = all_records(archive, latest);
  jobs::Lessons l;
  l.parameters = parameter_lessons(records);
  const auto credit = campaign_credit(archive, &latest);
  for (const auto& [op, c] : credit) l.operators.push_back({op, c.children, c.ok, c.improved});
  l.failures = failure_lessons(records);
  l.summary = summary_of(l);
  return l;
}

}  // namespace kforge::scheduler
