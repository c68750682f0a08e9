#include "kforge/engine/serving_loop.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <numeric>
#include <stdexcept>
#include <string>

#include "kforge/engine/engine_tolerance.hpp"

namespace kforge::kernels::engine {
namespace {

struct Flight {
  std::size_t request = 0;
  std::int64_t slot = 0;
  std::int64_t fed = 0;     // prompt tokens the engine has seen
  double started_ms = 0.0;  // TTFT counts from here: admission (closed loop) or arrival (open loop)
  double last_token_ms = 0.0;
};

// "" when `r` answers a step of `rows` sequences as serve() asked (its picked rows, or whole rows it then reduces
// into them); else what is wrong, for the failure ("step N returned ...").
std::string usable_rows(StepOutcome& r, std::size_t rows, std::int64_t vocab, std::span<const std::uint32_t> columns) {
  if (!r.logits.empty()) {
    if (r.logits.size() != rows * static_cast<std::size_t>(vocab))
      return std::to_string(r.logits.size()) + " logits for " + std::to_string(rows) + " sequences of vocab " +
             std::to_string(vocab);
    r.picked = pick_rows(r.logits, vocab, columns);
  }
  if (r.picked.greedy.size() != rows || r.picked.kept.size() != rows * (columns.size() + 1))
    return "no logits, or picked rows of the wrong size (" + std::to_string(r.picked.greedy.size()) + " tokens, " +
           std::to_string(r.picked.kept.size()) + " kept values) for " + std::to_string(rows) + " sequences";
  const bool finite = std::all_of(r.picked.kept.begin(), r.picked.kept.end(), [](float x) { return std::isfinite(x); });
  if (!finite || std::find(r.picked.greedy.begin(), r.picked.greedy.end(), -1) != r.picked.greedy.end())
    return "a logit that is not finite";
  for (const std::int32_t t : r.picked.greedy)
    if (t < 0 || t >= vocab) return "the greedy token " + std::to_string(t) + ", outside the vocabulary";
  return "";
}

}  // namespace

PickedRows pick_rows(std::span<const float> logits, std::int64_t vocab, std::span<const std::uint32_t> columns) {
  const auto v = static_cast<std::size_t>(vocab);
  PickedRows out;
  for (std::size_t at = 0; at + v <= logits.size(); at += v) {
    const std::span<const float> row = logits.subspan(at, v);
    const bool finite = std::all_of(row.begin(), row.end(), [](float x) { return std::isfinite(x); });
    const std::int64_t top = argmax(row);
    out.greedy.push_back(finite ? static_cast<std::int32_t>(top) : -1);
    for (const std::uint32_t c : columns) out.kept.push_back(row[c]);
    out.kept.push_back(row[static_cast<std::size_t>(top)]);
  }
  return out;
}

BatchPolicy batch_policy_from_genome(const jobs::Genome& genome) {
  BatchPolicy p;
  const auto one_of = [&](const char* name, std::initializer_list<std::int64_t> allowed, std::int64_t& into) {
    if (!genome.has(name)) return;
    const std::int64_t v = genome.get_int(name);
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      throw std::invalid_argument(std::string(name) + " = " + std::to_string(v) + " is not one of the allowed values");
    into = v;
  };
  one_of("max_batch", {1, 2, 4, 8, 16}, p.max_batch);
  one_of("prefill_chunk", {16, 32, 64, 128, 256}, p.prefill_chunk);
  if (genome.has("schedule")) {
    const std::string s = genome.get_string("schedule");
    if (s != "decode_first" && s != "prefill_first")
      throw std::invalid_argument("schedule = '" + s + "' is not 'decode_first' or 'prefill_first'");
    p.decode_first = s == "decode_first";
  }
  return p;
}

std::int64_t serving_slots(const WorkloadTrace& trace, const BatchPolicy& policy) {
  return trace.open_loop ? std::max<std::int64_t>(1, policy.max_batch) : std::max<std::int64_t>(1, trace.concurrency);
}

std::int64_t most_step_tokens(const BatchPolicy& policy) { return policy.max_batch * policy.prefill_chunk; }

std::vector<std::size_t> choose_step(const std::vector<bool>& decoding, const BatchPolicy& policy) {
  std::vector<std::size_t> chosen;
  for (int pass = 0; pass < 2; ++pass) {
    const bool want_decodes = (pass == 0) == policy.decode_first;
    for (std::size_t f = 0; f < decoding.size() && static_cast<std::int64_t>(chosen.size()) < policy.max_batch; ++f)
      if (decoding[f] == want_decodes) chosen.push_back(f);
  }
  return chosen;
}

void append_to_step(std::int64_t slot, std::span<const std::int32_t> prompt, std::int64_t fed,
                    std::span<const std::int32_t> generated, const BatchPolicy& policy, std::vector<StepSequence>& seqs,
                    std::vector<std::int32_t>& tokens) {
  const auto prompt_len = static_cast<std::int64_t>(prompt.size());
  if (fed < prompt_len) {
    const std::int64_t count = std::min(policy.prefill_chunk, prompt_len - fed);
    seqs.push_back({slot, fed, count});
    tokens.insert(tokens.end(), prompt.begin() + fed, prompt.begin() + fed + count);
  } else {
    seqs.push_back({slot, prompt_len + static_cast<std::int64_t>(generated.size()) - 1, 1});
    tokens.push_back(generated.back());
  }
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

ServingResult serve(const WorkloadTrace& trace, const BatchPolicy& policy, std::int64_t vocab, const StepFn& step,
                    const LogitSampler* sampler) {
  const std::size_t n = trace.requests.size();
  const std::int64_t slots = serving_slots(trace, policy);
  ServingResult out;
  out.outputs.resize(n);
  out.slot_of.assign(n, -1);
  if (sampler != nullptr) out.sampled.resize(n);
  std::vector<double> ttft, itl;
  std::vector<bool> slot_busy(static_cast<std::size_t>(slots), false);
  std::vector<Flight> flights;  // in admission order
  std::array<double, kOperatorCount> op_seconds{};
  double clock = 0.0;
  std::size_t next = 0, done = 0;

  while (done < n) {
    // Admit arrived requests into free slots (the lowest free slot, so slots are reused as soon as they free up).
    while (next < n && static_cast<std::int64_t>(flights.size()) < slots && trace.requests[next].arrival_ms <= clock) {
      const auto free = std::find(slot_busy.begin(), slot_busy.end(), false);
      *free = true;
      const double started = trace.open_loop ? trace.requests[next].arrival_ms : clock;
      flights.push_back(Flight{next, free - slot_busy.begin(), 0, started, 0.0});
      out.slot_of[next] = free - slot_busy.begin();
      ++next;
    }
    if (flights.empty()) {  // idle: the clock jumps to the next arrival
      clock = std::max(clock, trace.requests[next].arrival_ms);
      continue;
    }

    // The step's sequences: decodes and prefill chunks in admission order, the schedule's kind first.
    std::vector<bool> decoding(flights.size());
    for (std::size_t f = 0; f < flights.size(); ++f)
      decoding[f] = flights[f].fed == static_cast<std::int64_t>(trace.requests[flights[f].request].prompt.size());
    const std::vector<std::size_t> chosen = choose_step(decoding, policy);
    std::vector<StepSequence> seqs;
    std::vector<std::int32_t> tokens;
    for (const std::size_t f : chosen) {
      const Flight& fl = flights[f];
      append_to_step(fl.slot, trace.requests[fl.request].prompt, fl.fed, out.outputs[fl.request], policy, seqs, tokens);
    }

    const std::span<const std::uint32_t> columns =
        sampler != nullptr ? std::span<const std::uint32_t>(sampler->columns) : std::span<const std::uint32_t>();
    StepOutcome r = step(seqs, tokens, RowWants{false, columns});
    ++out.steps;
    out.sequence_steps += static_cast<std::int64_t>(seqs.size());
    out.tokens_fed += static_cast<std::int64_t>(tokens.size());
    for (const StepSequence& q : seqs) out.positions_read += q.start_position + q.token_count;
    out.failure = usable_rows(r, seqs.size(), vocab, columns);
    if (!out.failure.empty()) {
      out.failure = "step " + std::to_string(out.steps) + " returned " + out.failure;
      break;
    }
    clock += r.ms;
    for (std::size_t o = 0; o < op_seconds.size(); ++o) {
      if (std::isfinite(r.op_seconds[o]) && r.op_seconds[o] > 0.0) op_seconds[o] += r.op_seconds[o];  // evidence only
    }

    std::vector<std::size_t> finished;
    for (std::size_t s = 0; s < seqs.size(); ++s) {
      Flight& fl = flights[chosen[s]];
      const TraceRequest& req = trace.requests[fl.request];
      auto& generated = out.outputs[fl.request];
      const bool prefill = fl.fed < static_cast<std::int64_t>(req.prompt.size());
      if (prefill) fl.fed += seqs[s].token_count;
      if (prefill && fl.fed < static_cast<std::int64_t>(req.prompt.size())) continue;  // a chunk mid-prompt
      generated.push_back(r.picked.greedy[s]);
      if (sampler != nullptr) {
        const auto row = r.picked.kept.begin() + static_cast<std::ptrdiff_t>(s * (columns.size() + 1));
        out.sampled[fl.request].insert(out.sampled[fl.request].end(), row,
                                       row + static_cast<std::ptrdiff_t>(columns.size() + 1));
      }
      (prefill ? ttft : itl).push_back(clock - (prefill ? fl.started_ms : fl.last_token_ms));
      fl.last_token_ms = clock;
      if (static_cast<std::int64_t>(generated.size()) == req.output_tokens) finished.push_back(chosen[s]);
    }
    std::sort(finished.rbegin(), finished.rend());
    for (const std::size_t f : finished) {
      slot_busy[static_cast<std::size_t>(flights[f].slot)] = false;
      flights.erase(flights.begin() + static_cast<std::ptrdiff_t>(f));
      ++done;
    }
  }

  out.total_ms = clock;
  for (const auto& o : out.outputs) out.output_tokens += static_cast<std::int64_t>(o.size());
  out.output_tokens_per_s = clock > 0.0 ? static_cast<double>(out.output_tokens) / (clock * 1e-3) : 0.0;
  out.ttft_p50_ms = percentile(ttft, 50);
  out.ttft_p99_ms = percentile(ttft, 99);
  out.itl_p50_ms = percentile(itl, 50);
  out.itl_p99_ms = percentile(itl, 99);
  const double engine_s = std::accumulate(op_seconds.begin(), op_seconds.end(), 0.0);
  for (std::size_t o = 0; o < op_seconds.size(); ++o) out.op_share[o] = engine_s > 0.0 ? op_seconds[o] / engine_s : 0.0;
  return out;
}

}  // namespace kforge::kernels::engine
