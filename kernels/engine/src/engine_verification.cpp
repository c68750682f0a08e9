#include "kforge/engine/engine_verification.hpp"

#include <algorithm>
#include <random>
#include <string>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/workload_trace.hpp"
#include "kforge/kernels/verification.hpp"

namespace kforge::kernels::engine {
namespace {

// The fixed structure (docs/engines.md, "Verification"); only the tokens come from the seed.
struct Script {
  std::int64_t slot;
  std::int64_t prompt_len;
  std::int64_t outputs;     // tokens generated: the first from the prompt's last logits, then outputs - 1 decodes
  std::int64_t chunk;       // prompt tokens per step
  std::int64_t not_before;  // first step it may start in (it also waits for its slot to be free)
};
constexpr std::int64_t kSlots = 3;
// R0 runs 66 decodes (73 positions: past every kv_block size, 16/32/64); R1 has R0's prompt but for the last
// token, prefilled next to R0's first decode; R2 is prefilled in chunks beside decodes; R3 and R4 reuse the slots
// of R1 and R2 with shorter prompts, so stale positions of the slot's earlier request lie beyond theirs.
constexpr Script kScript[] = {
    {0, 7, 67, 7, 0}, {1, 7, 4, 7, 1}, {2, 10, 5, 4, 3}, {1, 5, 20, 4, 0}, {2, 6, 12, 6, 0},
};

struct Request {
  Script script;
  std::vector<std::int32_t> prompt;
  std::vector<std::int32_t> generated;
  std::int64_t fed = 0;
  bool started = false, done = false;
};

std::vector<Request> requests_from(std::uint64_t seed, std::int64_t vocab) {
  std::mt19937_64 rng(seed);
  std::vector<Request> out;
  for (const Script& s : kScript) {
    Request r{s, {}, {}, 0, false, false};
    for (std::int64_t n = 0; n < s.prompt_len; ++n)
      r.prompt.push_back(static_cast<std::int32_t>(uniform_in(rng(), 0, vocab - 1)));
    out.push_back(std::move(r));
  }
  // R1: R0's prompt with only its last token changed.
  out[1].prompt = out[0].prompt;
  if (vocab > 1) {
    const auto shift = static_cast<std::int32_t>(uniform_in(rng(), 1, vocab - 1));
    out[1].prompt.back() = static_cast<std::int32_t>((out[1].prompt.back() + shift) % vocab);
  }
  return out;
}

}  // namespace

VerificationNeeds verification_needs() {
  VerificationNeeds n;
  n.slots = kSlots;
  for (const Script& s : kScript) {
    n.max_context = std::max(n.max_context, s.prompt_len + s.outputs);
  }
  std::int64_t biggest_chunk = 0;
  for (const Script& s : kScript) biggest_chunk = std::max(biggest_chunk, s.chunk);
  n.most_sequences = kSlots;
  n.most_tokens = kSlots * biggest_chunk;
  return n;
}

std::vector<std::uint64_t> verification_seeds(std::uint64_t seed, const std::vector<std::string>& validation_cases) {
  std::vector<std::uint64_t> seeds{standard_case_seed(seed, 0)};
  for (const std::string& text : validation_cases) {
    const auto parsed = parse_case(text);
    if (parsed && parsed->keys.count("engine_trace") == 1) seeds.push_back(parsed->seed);
  }
  return seeds;
}

VerifyResult verify_engine_trace(const jobs::ModelSpec& model, const Weights& weights, std::uint64_t seed,
                                 const LogitsFn& candidate, double tolerance) {
  const VerificationNeeds needs = verification_needs();
  ReferenceEngine reference(model, weights, static_cast<int>(needs.slots), static_cast<int>(needs.max_context));
  const std::int64_t vocab = model.vocab;
  std::vector<Request> requests = requests_from(seed, vocab);
  VerifyResult result;
  result.max_abs_error = 0.0;
  result.max_rel_error = 0.0;
  const auto fail = [&](std::size_t r, std::int64_t step, std::int64_t position, const std::string& why) {
    result.status = jobs::Status::wrong_result;
    result.failed_case = "engine_trace=1 request=" + std::to_string(r) + " step=" + std::to_string(step) +
                         " position=" + std::to_string(position) + " seed=" + std::to_string(seed);
    result.evidence = "verification trace request R" + std::to_string(r) + " (slot " +
                      std::to_string(requests[r].script.slot) + ") step " + std::to_string(step) + " position " +
                      std::to_string(position) + ": " + why;
    return result;
  };

  std::vector<std::ptrdiff_t> active(static_cast<std::size_t>(kSlots), -1);
  for (std::int64_t step = 0;; ++step) {
    for (std::int64_t slot = 0; slot < kSlots; ++slot) {
      if (active[static_cast<std::size_t>(slot)] >= 0) continue;
      for (std::size_t r = 0; r < requests.size(); ++r) {
        if (requests[r].started || requests[r].script.slot != slot) continue;
        if (requests[r].script.not_before <= step) {  // a slot serves its requests in script order
          requests[r].started = true;
          active[static_cast<std::size_t>(slot)] = static_cast<std::ptrdiff_t>(r);
        }
        break;
      }
    }
    std::vector<SeqDesc> seqs;
    std::vector<std::int32_t> tokens;
    std::vector<std::size_t> owners;
    for (const std::ptrdiff_t a : active) {
      if (a < 0) continue;
      const Request& r = requests[static_cast<std::size_t>(a)];
      const auto prompt_len = static_cast<std::int64_t>(r.prompt.size());
      if (r.fed < prompt_len) {
        const std::int64_t count = std::min(r.script.chunk, prompt_len - r.fed);
        seqs.push_back({r.script.slot, r.fed, count});
        tokens.insert(tokens.end(), r.prompt.begin() + r.fed, r.prompt.begin() + r.fed + count);
      } else {
        seqs.push_back({r.script.slot, prompt_len + static_cast<std::int64_t>(r.generated.size()) - 1, 1});
        tokens.push_back(r.generated.back());
      }
      owners.push_back(static_cast<std::size_t>(a));
    }
    if (seqs.empty()) break;  // every request served

    const std::vector<double> want = reference.step(seqs, tokens);
    const std::vector<float> got = candidate(seqs, tokens);
    for (std::size_t s = 0; s < seqs.size(); ++s) {
      Request& r = requests[owners[s]];
      const std::int64_t position = seqs[s].start_position + seqs[s].token_count - 1;
      if (got.size() != want.size()) {
        return fail(owners[s], step, position,
                    "the engine returned " + std::to_string(got.size()) + " logits, expected " +
                        std::to_string(want.size()) + " (" + std::to_string(seqs.size()) + " sequences x vocab " +
                        std::to_string(vocab) + ")");
      }
      const auto at = s * static_cast<std::size_t>(vocab);
      const auto want_row = std::span<const double>(want).subspan(at, static_cast<std::size_t>(vocab));
      const auto got_row = std::span<const float>(got).subspan(at, static_cast<std::size_t>(vocab));
      const LogitCheck check = compare_logits(want_row, got_row, vocab, tolerance);
      result.max_abs_error = std::max(result.max_abs_error, check.max_abs);
      result.max_rel_error = std::max(result.max_rel_error, check.max_rel);
      const bool prefill = r.fed < static_cast<std::int64_t>(r.prompt.size());
      const std::string what =
          prefill ? "prefill chunk of " + std::to_string(seqs[s].token_count) + " tokens" : std::string("decode");
      if (!check.ok) return fail(owners[s], step, position, what + ": logits outside the tolerance: " + check.evidence);
      if (prefill) r.fed += seqs[s].token_count;
      if (r.fed < static_cast<std::int64_t>(r.prompt.size())) continue;  // mid-prompt: no token yet
      if (!greedy_agrees(want_row, got_row, tolerance)) {
        return fail(owners[s], step, position,
                    what + ": greedy token " + std::to_string(argmax(got_row)) + ", the reference's is " +
                        std::to_string(argmax(want_row)) + " (not a near tie)");
      }
      r.generated.push_back(static_cast<std::int32_t>(argmax(want_row)));  // the reference's token is fed next
      if (static_cast<std::int64_t>(r.generated.size()) == r.script.outputs) {
        r.done = true;
        active[static_cast<std::size_t>(r.script.slot)] = -1;
      }
    }
  }
  result.status = jobs::Status::ok;
  return result;
}

VerifyResult verify_engine(const jobs::ModelSpec& model, const Weights& weights, std::uint64_t seed,
                           const std::vector<std::string>& validation_cases, const LogitsFn& candidate,
                           double tolerance) {
  VerifyResult first;
  const std::vector<std::uint64_t> seeds = verification_seeds(seed, validation_cases);
  for (std::size_t n = 0; n < seeds.size(); ++n) {
    VerifyResult r = verify_engine_trace(model, weights, seeds[n], candidate, tolerance);
    if (r.status != jobs::Status::ok) {
      if (n > 0) r.evidence += "\ncaught by the campaign's validation set: " + r.failed_case;
      return r;
    }
    if (n == 0) first = r;
  }
  return first;
}

}  // namespace kforge::kernels::engine
