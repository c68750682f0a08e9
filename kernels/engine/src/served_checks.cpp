#include "kforge/engine/served_checks.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::engine {
namespace {

// Requests whose reference rows are computed at once: their rows x vocab doubles stay under about 128 MiB.
constexpr double kMostRowValues = 16.0 * 1024 * 1024;

std::string number(double v) {
  std::ostringstream out;
  out.precision(9);
  out << v;
  return out.str();
}

// "" when the rows kept of request r agree with the reference's rows (want: outputs x vocab doubles).
std::string compare_request(std::span<const double> want, const std::vector<std::int32_t>& outputs,
                            std::span<const float> kept, const LogitSampler& sampler, std::int64_t vocab,
                            double tolerance, CheckOutcome& out) {
  const std::size_t width = sampler.columns.size() + 1, v = static_cast<std::size_t>(vocab);
  if (kept.size() != outputs.size() * width)
    return std::to_string(kept.size() / width) + " logit rows kept for " + std::to_string(outputs.size()) + " tokens";
  for (std::size_t t = 0; t < outputs.size(); ++t) {
    const auto ref = want.subspan(t * v, v);
    const auto got = kept.subspan(t * width, width);
    const double scale = logit_row_scale(ref);
    const auto token = static_cast<std::size_t>(outputs[t]);
    const std::string at = "output " + std::to_string(t) + ": ";
    for (std::size_t c = 0; c < width; ++c) {
      const std::size_t column = c < sampler.columns.size() ? sampler.columns[c] : token;
      const double err = logit_error(ref[column], got[c]);
      out.max_abs_error = std::max(out.max_abs_error, err);
      out.max_rel_error = std::max(out.max_rel_error, err / scale);
      if (!(err <= tolerance * scale))
        return at + "logit of token " + std::to_string(column) + " " + number(got[c]) + ", the reference's " +
               number(ref[column]) + " (error " + number(err) + " > " + number(tolerance) + " x row scale " +
               number(scale) + ")";
    }
    if (!acceptable_choice(ref, token, tolerance, scale))
      return at + "token " + std::to_string(token) + " where the reference's greedy token is " +
             std::to_string(argmax(ref)) + " (not a near tie)";
    ++out.rows;
  }
  return "";
}

}  // namespace

std::uint64_t harness_secret() {
  std::uint64_t secret = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&secret);
  for (std::size_t done = 0; done < sizeof(secret);) {
    const ssize_t n = ::getrandom(bytes + done, sizeof(secret) - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InfrastructureError(std::string("getrandom for the harness's secret: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return secret;
}

LogitSampler draw_sampler(std::int64_t vocab, std::uint64_t secret) {
  std::vector<std::uint32_t> all(static_cast<std::size_t>(std::max<std::int64_t>(vocab, 0)));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint32_t>(i);
  if (vocab > kSampledColumns) {
    std::mt19937_64 rng(secret);
    for (std::int64_t i = 0; i < kSampledColumns; ++i)  // partial Fisher-Yates: the first kSampledColumns
      std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(uniform_in(rng(), i, vocab - 1))]);
    all.resize(static_cast<std::size_t>(kSampledColumns));
    std::sort(all.begin(), all.end());
  }
  return LogitSampler{std::move(all)};
}

WorkloadTrace fresh_trace(const jobs::WorkloadSpec& workload, std::int64_t vocab, std::uint64_t secret) {
  WorkloadTrace trace = make_trace(workload, vocab);  // the lengths and arrival times every run shares
  std::mt19937_64 rng(secret);
  for (std::size_t i = trace.requests.size(); i > 1; --i) {  // Fisher-Yates: which request comes when
    const auto j = static_cast<std::size_t>(uniform_in(rng(), 0, static_cast<std::int64_t>(i) - 1));
    std::swap(trace.requests[i - 1].prompt, trace.requests[j].prompt);
    std::swap(trace.requests[i - 1].output_tokens, trace.requests[j].output_tokens);
  }
  for (TraceRequest& r : trace.requests)
    for (auto& token : r.prompt) token = static_cast<std::int32_t>(uniform_in(rng(), 0, vocab - 1));
  return trace;
}

std::vector<std::size_t> requests_to_check(const ServingResult& run, std::uint64_t secret) {
  std::map<std::int64_t, std::vector<std::size_t>> by_slot;
  for (std::size_t r = 0; r < run.slot_of.size(); ++r)
    if (run.slot_of[r] >= 0) by_slot[run.slot_of[r]].push_back(r);
  std::mt19937_64 rng(secret);
  std::vector<std::size_t> out;
  for (const auto& [slot, requests] : by_slot)
    out.push_back(
        requests[static_cast<std::size_t>(uniform_in(rng(), 0, static_cast<std::int64_t>(requests.size()) - 1))]);
  std::sort(out.begin(), out.end());
  return out;
}

CheckOutcome check_requests(const ReferenceEngine& reference, const WorkloadTrace& trace, const ServingResult& run,
                            const LogitSampler& sampler, std::span<const std::size_t> which, const std::string& where,
                            double tolerance) {
  CheckOutcome out;
  const std::int64_t vocab = reference.model().vocab;
  std::vector<std::vector<std::int32_t>> histories(which.size());
  for (std::size_t i = 0; i < which.size();) {
    // A group of requests whose reference rows fit the budget, computed together.
    std::vector<ForcedSequence> group;
    double values = 0.0;
    const std::size_t first = i;
    for (; i < which.size(); ++i) {
      const std::size_t r = which[i];
      const auto& outputs = run.outputs[r];
      if (outputs.empty() || run.sampled.size() <= r) {
        out.wrong = where + ", request " + std::to_string(r) + ": nothing was kept of its answers";
        out.request = static_cast<std::int64_t>(r);
        return out;
      }
      const double rows = static_cast<double>(outputs.size()) * static_cast<double>(vocab);
      if (!group.empty() && values + rows > kMostRowValues) break;
      values += rows;
      auto& history = histories[i];
      history = trace.requests[r].prompt;
      history.insert(history.end(), outputs.begin(), outputs.end() - 1);  // the last token is never fed back
      group.push_back({history, static_cast<std::int64_t>(trace.requests[r].prompt.size()) - 1});
    }
    const std::vector<std::vector<double>> want = reference.teacher_forced(group);
    for (std::size_t g = 0; g < group.size(); ++g) {
      const std::size_t r = which[first + g];
      const std::string wrong =
          compare_request(want[g], run.outputs[r], run.sampled[r], sampler, vocab, tolerance, out);
      if (!wrong.empty()) {
        out.wrong =
            where + ", request " + std::to_string(r) + " (slot " + std::to_string(run.slot_of[r]) + "), " + wrong;
        out.request = static_cast<std::int64_t>(r);
        return out;
      }
    }
  }
  return out;
}

}  // namespace kforge::kernels::engine
